// Window and Winning PoSt (storage-proofs-post `fallback`): which sectors and leaves are challenged,
// and the circuit's public inputs per partition (ONE not included).
//  - sector challenge n (WinningPoSt picks 1 of the sector set): SHA-256(prover_id || randomness ||
//    n u64 LE), first 8 bytes as u64 LE, mod sector_set_len;
//  - leaf challenge: SHA-256(randomness || sector_id u64 LE || challenge_index u64 LE), first 8 bytes
//    LE mod nodes, where challenge_index = n under API 1.2 and sector_index * challenge_count + n
//    before (sector_index counts across partitions);
//  - inputs: per sector of the partition's chunk, comm_r then its challenge_count leaf indices; a
//    short last chunk repeats its last sector's inputs up to sector_count. Counts are the circuit's
//    (post_proof_info::circuit_*): WinningPoSt's circuit has 66 sectors of 1 challenge, and its
//    verifier lists the challenged sector 66 times (challenge_index = copy index: the same 66 leaves
//    as the vanilla proof's 66 challenges of that sector).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fil/registered_proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil::post {

struct public_sector {  // PublicSector
  std::uint64_t id = 0;
  domain comm_r{};
};

std::uint64_t generate_sector_challenge(const domain& randomness, std::uint64_t n, std::uint64_t sector_set_len,
                                        const domain& prover_id);
std::vector<std::uint64_t> generate_sector_challenges(const domain& randomness, std::uint64_t challenge_count,
                                                      std::uint64_t sector_set_len, const domain& prover_id);
std::uint64_t generate_leaf_challenge(std::uint64_t sector_size, const domain& randomness, std::uint64_t sector_id,
                                      std::uint64_t leaf_challenge_index);
std::uint64_t challenge_index(api_version v, std::uint64_t sector_index, std::uint64_t challenge_count,
                              std::uint64_t n);
// The leaf challenges of sector `sector_index` (its position among all sectors of the proof).
std::vector<std::uint64_t> leaf_challenges(const post_proof_info& proof, const domain& randomness,
                                           std::uint64_t sector_id, std::uint64_t sector_index);
// Partitions a proof over `sectors` (the challenged sectors, sorted by id) has: ceil(len / sector_count).
std::size_t partition_count(const post_proof_info& proof, std::size_t sectors);
// `sectors` as the caller knows them (WinningPoSt: its one challenged sector); the WinningPoSt copies
// are made here.
std::vector<fr> generate_public_inputs(const post_proof_info& proof, const domain& randomness,
                                       std::span<const public_sector> sectors, std::size_t partition);
// The same for one partition from its own sectors alone (1 to circuit_sector_count(); WinningPoSt:
// the copies already made), `partition` its index in the proof: the sectors before it are not needed.
std::vector<fr> partition_public_inputs(const post_proof_info& proof, const domain& randomness,
                                        std::span<const public_sector> sectors, std::size_t partition);

}  // namespace cuzk::fil::post
