// The C1 output readers: Curio's wrapper {"SectorNum", "Phase1Out", "SectorSize"} whose Phase1Out is
// the base64 of the serde JSON SealCommitPhase1Output, or that JSON bare. Both are stream-parsed
// (fil/io/json_stream.hpp): the file is read in 64 KiB chunks, Phase1Out is base64-decoded on the fly
// into a second parser, and only the resulting structures are kept (about a fifth of the file size).
//
// After parsing, the output is checked against its registered proof (check_shape): the variant of
// vanilla_proofs, the number of partitions and challenges, every Merkle path's shape (comm_d: binary,
// log2(nodes) levels; comm_r_last and comm_c: the sector's base/sub/top arities), columns of `layers`
// rows, 6 + 8 parent columns, `layers` labeling proofs of 37 parents, and for the wrapper
// SectorSize == the proof's sector size. Every failure is one zk::input_error line naming the field.
#pragma once

#include <span>
#include <string>

#include "fil/io/json_stream.hpp"
#include "zk/util/parallel.hpp"
#include "fil/seal_commit_phase1_output.hpp"

namespace cuzk::fil::io {

// `origin` names the input in messages (the file name).
c1_output read_c1(byte_source& src, const std::string& origin);
// The same from bytes in memory, on `pool`: Curio's wrapper as Curio writes it has its Phase1Out
// decoded and its partitions parsed on the pool (0.97 s on one thread at 32 GiB, the whole time
// between a job's submit and its first synthesis); any other input, or a damaged one, is read as
// above. The output, and any error, are the serial read's.
c1_output read_c1(std::span<const std::uint8_t> bytes, const std::string& origin, zk::thread_pool& pool);
// C1 outputs read so far by this process (either read_c1): how a test sees that a request path parses
// its C1 once (an 0.97 s read at 32 GiB, not one to repeat).
std::uint64_t c1_reads();
c1_output read_c1_file(const std::string& path,
                       const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

// Throws input_error (origin + field) when the structure does not match the registered proof.
void check_shape(const seal_commit_phase1_output& c1, const std::string& origin);

// The serde JSON of a SealCommitPhase1Output (compact, as serde_json::to_vec writes it), and Curio's
// wrapper around it: for tests and fixtures.
std::string to_json(const seal_commit_phase1_output& c1);
std::string wrap_c1(const std::string& phase1_json, std::uint64_t sector_num, std::uint64_t sector_size);

}  // namespace cuzk::fil::io
