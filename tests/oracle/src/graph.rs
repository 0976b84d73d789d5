//! `graph`: the SDR graph's parents per node, as storage-proofs-porep's StackedBucketGraph
//! computes them (the 6 DRG base parents from the ChaCha-seeded bucket graph, then the 8
//! expander parents from the Feistel permutation), so a C++ graph can be compared node by node.

use std::str::FromStr;

use filecoin_hashers::poseidon::PoseidonHasher;
use storage_proofs_core::api_version::ApiVersion;
use storage_proofs_core::drgraph::{Graph, BASE_DEGREE};
use storage_proofs_porep::stacked::{StackedBucketGraph, EXP_DEGREE};

use crate::util::*;

/// `graph --sector-size 2KiB|8MiB --porep-id HEX [--nodes A..B] [--api-version 1.1.0]`
pub fn cmd_graph(a: &Args) -> Res<()> {
    a.check_known(&["sector-size", "porep-id", "nodes", "api-version"])?;
    let size = parse_sector_size(a.req("sector-size")?)?;
    let nodes = (size / 32) as usize;
    let rp = seal_proof_for(size).ok();
    let porep_id = match a.opt("porep-id") {
        Some(h) => hex32(h, "--porep-id")?,
        None => match rp {
            Some(rp) => rp.as_v1_config().porep_id,
            None => return input("graph: --porep-id is required for this sector size"),
        },
    };
    let api = match a.opt("api-version") {
        Some(v) => ApiVersion::from_str(v).bad_input("--api-version")?,
        None => ApiVersion::V1_1_0,
    };
    let (first, last) = match a.opt("nodes") {
        None => (0, nodes),
        Some(r) => {
            let Some((x, y)) = r.split_once("..") else {
                return input(format!("--nodes '{}' must be A..B", r));
            };
            let x: usize = x.parse().map_err(|_| Fail::Input(format!("--nodes '{}': bad A", r)))?;
            let y: usize = y.parse().map_err(|_| Fail::Input(format!("--nodes '{}': bad B", r)))?;
            if x > y || y > nodes {
                return input(format!("--nodes '{}' must satisfy A <= B <= {}", r, nodes));
            }
            (x, y)
        }
    };
    let g = StackedBucketGraph::<PoseidonHasher>::new_stacked(nodes, BASE_DEGREE, EXP_DEGREE, porep_id, api)
        .failed("building the graph")?;
    let mut parents = Vec::with_capacity(last - first);
    let mut p = vec![0u32; BASE_DEGREE + EXP_DEGREE];
    for n in first..last {
        g.parents(n, &mut p).failed("parents")?;
        parents.push(p.clone());
    }
    let out = serde_json::json!({
        "sector_size": size,
        "nodes": nodes,
        "porep_id": hex::encode(porep_id),
        "api_version": api.to_string(),
        "base_degree": BASE_DEGREE,
        "exp_degree": EXP_DEGREE,
        "first": first,
        "parents": parents,
    });
    println!("{}", out);
    Ok(())
}
