// bellperson's Groth16 key files, as Filecoin ships them (`v28-*.params`, `v28-*.vk`).
//
//   .vk      alpha_g1, beta_g1 (G1), beta_g2, gamma_g2 (G2), delta_g1 (G1), delta_g2 (G2),
//            u32 big-endian count, that many IC points (G1): 868 + 96 n bytes, nothing after.
//   .params  the .vk bytes, then five sections h, l, a, b_g1 (G1) and b_g2 (G2), each a u32
//            big-endian count and that many points. No padding, no header of its own.
// Points are uncompressed (zk/bls12_381/compressed.hpp: G1 96 B, G2 192 B, big-endian, flags in the
// top three bits of byte 0).
//
// Opening a .params file costs what its headers cost, whatever its size (44 GiB at 32 GiB PoRep):
// the file is mapped, the vk is decoded and fully checked (on the curve, in the subgroup, not the
// identity), and the five counts are read by walking from one section to the next, each section's
// extent checked against the file size before the next count is read. Points are decoded (to our
// Montgomery affine layout) and checked (canonical, on the curve, not the identity) when a section
// is used; like rust-fil-proofs we do not subgroup-check them: their integrity is the file's
// digest (parameters.json), which `cuzk params check` verifies.
//
// What the sections hold (bellperson groth16 generator/prover, see docs/formats.md):
//   h     2^k - 1 points tau^i Z(tau) / delta (coefficients of h, coset-NTT convention)
//   l     one per aux variable: (beta u + alpha v + w) / delta
//   a     the inputs' A points, then those of aux variables present in some A term
//   b_g1  B points (G1) of the inputs and aux variables present in some B term; b_g2 in G2
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zk/groth16/types.hpp"
#include "zk/io/binfile.hpp"
#include "zk/util/huge_page_allocator.hpp"

namespace cuzk::zk::io {

using namespace cuzk::zk::bls12_381;

struct zkey;  // zk/io/zkey.hpp

inline constexpr std::uint64_t bellperson_vk_fixed_bytes = 868;  // before the IC points

// STABLE API (zk/fil uses it). A .vk file, every point checked: flags, coordinates < p, on the
// curve, in the prime-order subgroup, not the identity. Throws input_error with one line naming
// the file and the field, e.g. "x.vk: ic[3]: point at infinity".
groth16::verifying_key read_bellperson_vk(const std::string& path);
groth16::verifying_key parse_bellperson_vk(std::span<const std::uint8_t> bytes, const std::string& name);
// The same layout with every point compressed (48/96 bytes; polka-storage's vk encoding, used by
// its published 2 KiB test vectors): 432 + 48 n bytes. Same checks.
groth16::verifying_key parse_compressed_vk(std::span<const std::uint8_t> bytes, const std::string& name);
// The .vk bytes of a key (exact inverse of parse_bellperson_vk).
std::vector<std::uint8_t> bellperson_vk_bytes(const groth16::verifying_key& vk);

// Left unconstructed until decoded, in huge pages (zk/util/huge_page_allocator.hpp): a section of a
// 2^24-row key is 1.6 GB; zeroing it on one thread first cost more than decoding it on all cores,
// and 4 KiB page faults on first touch cost more again.
template <class Point>
using decoded_points = std::vector<Point, huge_page_allocator<Point>>;

// A mapped .params file: the vk and the extents of its five sections.
struct bellperson_params {
  struct section {
    std::uint64_t offset = 0;  // of the section's first point
    std::uint32_t count = 0;
  };
  std::string path;
  std::shared_ptr<const file_bytes> bytes;
  groth16::verifying_key vk;
  section h, l, a, b_g1, b_g2;

  std::uint64_t size_bytes() const { return bytes ? bytes->bytes().size() : 0; }
  // Inputs including the constant ONE: vk.ic.size(). Aux variables: l.count.
  std::size_t n_inputs() const { return vk.ic.size(); }
  // Domain size 2^k = h.count + 1 (0 when h.count + 1 is not a power of two).
  std::uint64_t domain_size() const;

  // Maps and reads the headers (see above); throws input_error naming the file and section.
  static bellperson_params open(const std::string& path);
  static bellperson_params parse(std::shared_ptr<const file_bytes> bytes, std::string name);

  // One section's points in our layout, decoded in parallel; each must be canonical, on its curve
  // and not the identity (input_error naming the section and index, e.g. "k.params: a[17]: ...").
  // On-curve tests run eight points at a time on AVX-512 IFMA lanes where the CPU has them.
  decoded_points<g1_affine> g1_section(const section& s, std::string_view what) const;
  decoded_points<g2_affine> g2_section(const section& s, std::string_view what) const;
  // The one-line error that g1_section / g2_section throw for point i of a section when that point
  // is bad (for a device that checks the points itself and found point i the first bad one).
  std::string point_error(const section& s, std::string_view what, std::size_t i, bool g2) const;
};

// Writes a key of the bellperson convention (io::zkey with convention bellperson, e.g. from
// groth16::setup) as .params, and its vk as .vk. Throws input_error for a snarkjs-convention key.
void write_bellperson_params(const std::string& path, const zkey& key);
void write_bellperson_vk(const std::string& path, const groth16::verifying_key& vk);
// The bytes write_bellperson_params writes (same error).
std::vector<std::uint8_t> bellperson_params_bytes(const zkey& key);

// parameters.json's digest of a file: the first 32 hex digits of its BLAKE2b-512 (what
// rust-fil-proofs' paramfetch compares). `progress(done, total)` is called as bytes are hashed.
std::string parameters_json_digest(const std::string& path,
                                   const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});
// The same digest of bytes in memory (a file about to be written).
std::string parameters_json_digest(std::span<const std::uint8_t> bytes);
// The same digest fed piece by piece (a file hashed as it is written).
class parameters_json_hasher {
 public:
  parameters_json_hasher();
  ~parameters_json_hasher();
  parameters_json_hasher(const parameters_json_hasher&) = delete;
  parameters_json_hasher& operator=(const parameters_json_hasher&) = delete;
  void update(std::span<const std::uint8_t> bytes);
  std::string hex();  // the digest of everything fed; call once

 private:
  void* ctx_ = nullptr;
};

}  // namespace cuzk::zk::io
