// Curio's SubmitProofRequest for a Filecoin job, built from files as tests/curio-client builds it
// (`cuzk fil submit`, `cuzk bench fil`). Throw zk::input_error naming the file and field.
#pragma once

#include <cstdint>
#include <string>

#include "cuzk/v1/proving.pb.h"

namespace cuzk::cli {

// PoRep C2 from Curio's C1 wrapper ({"SectorNum", "Phase1Out", "SectorSize"}) for miner `miner`, as
// the V1_1 proof of its sector size.
::cuzk::v1::SubmitProofRequest fil_porep_request(const std::string& c1, std::uint64_t miner);
// WindowPoSt / WinningPoSt from fil-oracle's DIR/post.json and the vanilla-*.bin it names.
::cuzk::v1::SubmitProofRequest fil_post_request(const std::string& dir);
// SnapDeals from fil-oracle's DIR/update.json (registered_proof, the three commitments in hex) and
// the PartitionProof files it names, in partition order.
::cuzk::v1::SubmitProofRequest fil_snap_request(const std::string& dir);

}  // namespace cuzk::cli
