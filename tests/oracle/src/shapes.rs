//! Blank circuits of named shapes, for `r1cs --shape NAME`: the small shapes the Rust crates'
//! own tests pin constraint counts on (so our dump can be checked against those numbers), and
//! the registered 2 KiB..64 GiB shapes parameter generation synthesizes.
//!
//! Test shapes, as the crates' tests build them (storage-proofs 19, tests/stacked_circuit.rs
//! and tests/fallback_circuit.rs):
//! - porep-test-<arity>: 8 x base-tree-count nodes, BASE_DEGREE 6, EXP_DEGREE 8, porep_id
//!   [44; 32], 1 interactive challenge, 2 layers, API 1.1.0, DiskTree<Poseidon, arity>,
//!   Sha256 tree D: 22 inputs; 1,206,212 (2), 1,199,620 (8), 1,296,576 (8-4), 1,346,982 (8-4-2).
//! - post-test-<arity>: 64 x base-tree-count leaves, 5 challenges, 3 sectors, API 1.1.0,
//!   LCTree<Poseidon, arity>: 19 inputs; 16,869 (8), 22,674 (8-4), 27,384 (8-4-2).
//! The count of a shape does not depend on the witness, which is why a blank circuit (the one
//! parameter generation uses) reproduces it.

use filecoin_hashers::poseidon::PoseidonHasher;
use filecoin_hashers::sha256::Sha256Hasher;
use filecoin_proofs::types::MerkleTreeTrait;
use generic_array::typenum::{U0, U2, U4, U8};
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::drgraph::BASE_DEGREE;
use storage_proofs_core::merkle::{get_base_tree_count, DiskTree, LCTree};
use storage_proofs_core::proof::ProofScheme;
use storage_proofs_core::util::NODE_SIZE;
use storage_proofs_porep::stacked::{self, Challenges, StackedCompound, StackedDrg, EXP_DEGREE};
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCompound};

use crate::r1cs::Summary;
use crate::util::*;

fn porep_test<Tree: 'static + MerkleTreeTrait>(out: Option<&std::path::Path>) -> Res<Summary> {
    let sp = stacked::SetupParams {
        nodes: 8 * get_base_tree_count::<Tree>(),
        degree: BASE_DEGREE,
        expansion_degree: EXP_DEGREE,
        porep_id: [44; 32],
        challenges: Challenges::new_interactive(1),
        num_layers: 2,
        api_version: ApiVersion::V1_1_0,
        api_features: vec![],
    };
    let pp = StackedDrg::<Tree, Sha256Hasher>::setup(&sp).failed("setup")?;
    let c = <StackedCompound<Tree, Sha256Hasher> as CompoundProof<StackedDrg<'_, Tree, Sha256Hasher>, _>>::blank_circuit(&pp);
    crate::r1cs::dump(|| Ok(c.clone()), false, out)
}

fn post_test<Tree: 'static + MerkleTreeTrait>(out: Option<&std::path::Path>) -> Res<Summary> {
    let pp = fallback::PublicParams {
        sector_size: (64 * get_base_tree_count::<Tree>() * NODE_SIZE) as u64,
        challenge_count: 5,
        sector_count: 3,
        api_version: ApiVersion::V1_1_0,
    };
    let c = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::blank_circuit(&pp);
    crate::r1cs::dump(|| Ok(c.clone()), false, out)
}

pub const TEST_SHAPES: &[&str] = &[
    "porep-test-2",
    "porep-test-8",
    "porep-test-8-4",
    "porep-test-8-4-2",
    "post-test-8",
    "post-test-8-4",
    "post-test-8-4-2",
    "porep",
    "window-post",
    "winning-post",
    "update",
];

/// `--shape NAME [--sector-size S]` (the last three take the registered shape of S).
pub fn blank(name: &str, size: Option<u64>, out: Option<&std::path::Path>) -> Res<Summary> {
    type P = PoseidonHasher;
    match name {
        "porep-test-2" => porep_test::<DiskTree<P, U2, U0, U0>>(out),
        "porep-test-8" => porep_test::<DiskTree<P, U8, U0, U0>>(out),
        "porep-test-8-4" => porep_test::<DiskTree<P, U8, U4, U0>>(out),
        "porep-test-8-4-2" => porep_test::<DiskTree<P, U8, U4, U2>>(out),
        "post-test-8" => post_test::<LCTree<P, U8, U0, U0>>(out),
        "post-test-8-4" => post_test::<LCTree<P, U8, U4, U0>>(out),
        "post-test-8-4-2" => post_test::<LCTree<P, U8, U4, U2>>(out),
        "update" => {
            let Some(size) = size else {
                return input("--shape update needs --sector-size");
            };
            crate::update::update_blank(size, out)
        }
        "porep" | "window-post" | "winning-post" => {
            let Some(size) = size else {
                return input(format!("--shape {} needs --sector-size", name));
            };
            if name == "porep" {
                crate::porep::porep_blank(size, out)
            } else {
                crate::post::post_blank(name == "window-post", size, out)
            }
        }
        other => input(format!("--shape '{}' is not one of {}", other, TEST_SHAPES.join(", "))),
    }
}
