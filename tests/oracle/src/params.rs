//! `params`: Groth16 parameters over the real circuits, generated the way filecoin-proofs'
//! parameter cache does on a miss (paramcache: get_param_metadata, get_groth_params and
//! get_verifying_key with an rng), into FIL_PROOFS_PARAMETER_CACHE under Filecoin's own file
//! names (v28-<prefix>-<sha256 of the circuit identifier>.{params,vk,meta}).
//!
//! The rng is ChaCha20 seeded from --seed (default 0) and the proof kind, so a given Cargo.lock
//! and seed give the same files: the toxic waste is known, which is what a test oracle wants
//! and nothing else should. A cache hit is left untouched.

use filecoin_proofs::constants::DefaultPieceHasher;
use filecoin_proofs::parameters::{public_params, window_post_public_params, winning_post_public_params};
use filecoin_proofs::types::{MerkleTreeTrait, PoRepConfig, PoStConfig};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::parameter_cache::CacheableParameters;
use storage_proofs_porep::stacked::{StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCompound};

use crate::update::update_params;
use crate::util::*;

fn porep_params<Tree: 'static + MerkleTreeTrait>(cfg: &PoRepConfig, rng: &mut ChaCha20Rng) -> Res<()> {
    let pp = public_params::<Tree>(cfg).failed("public_params")?;
    let c = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::blank_circuit(&pp);
    StackedCompound::<Tree, DefaultPieceHasher>::get_param_metadata(c.clone(), &pp).failed("metadata")?;
    StackedCompound::<Tree, DefaultPieceHasher>::get_groth_params(Some(&mut *rng), c.clone(), &pp)
        .failed("generating groth params")?;
    StackedCompound::<Tree, DefaultPieceHasher>::get_verifying_key(Some(&mut *rng), c, &pp)
        .failed("verifying key")?;
    Ok(())
}

fn post_params<Tree: 'static + MerkleTreeTrait>(
    cfg: &PoStConfig,
    window: bool,
    rng: &mut ChaCha20Rng,
) -> Res<()> {
    let pp = if window {
        window_post_public_params::<Tree>(cfg).failed("window_post_public_params")?
    } else {
        winning_post_public_params::<Tree>(cfg).failed("winning_post_public_params")?
    };
    let c = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::blank_circuit(&pp);
    FallbackPoStCompound::<Tree>::get_param_metadata(c.clone(), &pp).failed("metadata")?;
    FallbackPoStCompound::<Tree>::get_groth_params(Some(&mut *rng), c.clone(), &pp)
        .failed("generating groth params")?;
    FallbackPoStCompound::<Tree>::get_verifying_key(Some(&mut *rng), c, &pp).failed("verifying key")?;
    Ok(())
}

/// `params --proof porep|window-post|winning-post|update --sector-size 2KiB --cache DIR [--seed N]`
pub fn cmd_params(a: &Args) -> Res<()> {
    a.check_known(&["proof", "sector-size", "cache", "seed"])?;
    use_param_cache(&a.path("cache")?)?;
    let size = parse_sector_size(a.req("sector-size")?)?;
    let seed = a.u64_or("seed", 0)?;
    let kind = a.req("proof")?;
    let t = std::time::Instant::now();
    let (params, vk) = match kind {
        "porep" => {
            let rp = seal_proof_for(size)?;
            let (p, v) = (rp.cache_params_path().failed("path")?, rp.cache_verifying_key_path().failed("path")?);
            if !(p.exists() && v.exists()) {
                stage(&format!("params: generating {} (this takes minutes)", p.display()));
                let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x504f_5245_5000_0001);
                crate::by_shape!(size, porep_params, &rp.as_v1_config(), &mut rng)?;
            }
            (p, v)
        }
        "window-post" | "winning-post" => {
            let window = kind == "window-post";
            let rp = post_proof_for(if window { "window" } else { "winning" }, size)?;
            let (p, v) = (rp.cache_params_path().failed("path")?, rp.cache_verifying_key_path().failed("path")?);
            if !(p.exists() && v.exists()) {
                stage(&format!("params: generating {}", p.display()));
                let mut rng =
                    ChaCha20Rng::seed_from_u64(seed ^ if window { 0x504f_5354_0000_0002 } else { 0x504f_5354_0000_0003 });
                crate::by_shape!(size, post_params, &rp.as_v1_config(), window, &mut rng)?;
            }
            (p, v)
        }
        "update" => {
            crate::update::update_proof_for(size)?;
            let (p, v) = crate::update::update_param_paths(size)?;
            if !(p.exists() && v.exists()) {
                stage(&format!("params: generating {}", p.display()));
                let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x534e_4150_0000_0004);
                crate::by_shape!(size, update_params, size, &mut rng)?;
            }
            (p, v)
        }
        other => return input(format!("--proof '{}' must be porep, window-post, winning-post or update", other)),
    };
    let secs = t.elapsed().as_secs_f64();
    let mut files = Vec::new();
    for p in [&params, &vk] {
        let len = std::fs::metadata(p).failed("stat")?.len();
        files.push(serde_json::json!({
            "name": p.file_name().unwrap().to_string_lossy(),
            "path": p.display().to_string(),
            "bytes": len,
            "digest": param_digest(p)?,
        }));
    }
    println!("{}", serde_json::json!({"proof": kind, "sector_size": size, "seconds": secs, "files": files}));
    Ok(())
}
