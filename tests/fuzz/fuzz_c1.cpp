// libFuzzer: the stream-parsed C1 output reader (wrapper with base64 Phase1Out, or bare JSON). Only
// input_error may escape; the read from memory on a pool (read_c1(bytes, origin, pool): Phase1Out
// decoded and the partitions parsed on the pool, the serial read when anything is off) gives the
// serial read's output or its very error message on every input; what parses must write back to
// JSON that parses to the same proofs.
#include <cstdlib>
#include <optional>
#include <span>
#include <string>

#include "fil/io/c1_json.hpp"
#include "zk/error.hpp"
#include "zk/util/parallel.hpp"

using namespace cuzk;

namespace {

bool same(const fil::c1_output& a, const fil::c1_output& b) {
  const auto &p = a.phase1_out, &q = b.phase1_out;
  return a.sector_num == b.sector_num && a.sector_size == b.sector_size && a.wrapped == b.wrapped &&
         p.registered_proof == q.registered_proof && p.vanilla_proofs_variant == q.vanilla_proofs_variant &&
         p.vanilla_proofs == q.vanilla_proofs && p.comm_r == q.comm_r && p.comm_d == q.comm_d &&
         p.replica_id == q.replica_id && p.seed == q.seed && p.ticket == q.ticket;
}

// The read's output, or its error message in `error`.
template <class Read>
std::optional<fil::c1_output> attempt(Read&& read, std::string& error) {
  try {
    return read();
  } catch (const zk::input_error& e) {
    error = e.what();
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static zk::thread_pool pool(3);  // more than one: the pool read is tried (one thread reads serially)
  const std::span<const std::uint8_t> bytes(data, size);
  std::string serial_error, pool_error;
  const auto c1 = attempt(
      [&] {
        fil::io::memory_source src(bytes);
        return fil::io::read_c1(src, "c1.json");
      },
      serial_error);
  const auto on_pool = attempt([&] { return fil::io::read_c1(bytes, "c1.json", pool); }, pool_error);
  if (c1.has_value() != on_pool.has_value() || serial_error != pool_error || (c1 && !same(*c1, *on_pool)))
    std::abort();
  if (!c1) return 0;
  try {
    const std::string again = fil::io::to_json(c1->phase1_out);
    fil::io::memory_source src2(again);
    const auto back = fil::io::read_c1(src2, "re.json");
    if (!(back.phase1_out.vanilla_proofs == c1->phase1_out.vanilla_proofs) ||
        back.phase1_out.replica_id != c1->phase1_out.replica_id)
      std::abort();
  } catch (const zk::input_error&) {
  }
  return 0;
}
