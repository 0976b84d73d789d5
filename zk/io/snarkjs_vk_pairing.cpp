// vk_to_json(vk) with vk_alphabeta_12 = e(alpha1, beta2): in its own file so that the readers and
// writers (and their fuzz targets) do not depend on the pairing.
#include "zk/bls12_381/pairing.hpp"
#include "zk/io/snarkjs_json.hpp"

namespace cuzk::zk::io::snarkjs {

json vk_to_json(const groth16::verifying_key& vk) {
  return vk_to_json(vk, fp12_to_json(bls12_381::pairing(vk.alpha1, vk.beta2)));
}

}  // namespace cuzk::zk::io::snarkjs
