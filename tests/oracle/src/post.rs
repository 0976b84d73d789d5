//! WindowPoSt / WinningPoSt through filecoin-proofs' API over sectors `seal` left on disk: the
//! challenges, the per-sector vanilla proofs in the bincode form Curio sends
//! (FallbackPoStSectorProof), the reference SNARK, its verification, and — rebuilt the way
//! generate_*_post_with_vanilla builds them — the public inputs and the circuit of a partition.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use blstrs::Scalar as Fr;
use filecoin_hashers::Hasher;
use filecoin_proofs::parameters::{window_post_public_params, winning_post_public_params};
use filecoin_proofs::types::{FallbackPoStSectorProof, MerkleTreeTrait, PoStConfig};
use filecoin_proofs::{as_safe_commitment, partition_vanilla_proofs};
use filecoin_proofs_api::post;
use filecoin_proofs_api::{PrivateReplicaInfo, PublicReplicaInfo, RegisteredPoStProof, SectorId};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_post::fallback::{self, FallbackPoSt, FallbackPoStCompound, PublicSector};

use crate::util::*;

/// What `post` writes to OUT/post.json, and what the other PoSt commands read back.
#[derive(serde::Serialize, serde::Deserialize, Clone)]
pub struct PostJson {
    pub kind: String,
    pub registered_proof: String,
    pub sector_size: u64,
    pub miner_id: u64,
    pub prover_id: String,
    /// 32 B hex, the top two bits already cleared (a valid Fr, as the chain hands it over).
    pub randomness: String,
    /// The challenged sectors in proving order, one vanilla proof file each.
    pub sectors: Vec<PostSector>,
    pub partitions: usize,
    pub proof: String,
    pub valid: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone)]
pub struct PostSector {
    pub sector_id: u64,
    pub comm_r: String,
    pub challenges: Vec<u64>,
    pub vanilla: String,
}

struct Sealed {
    id: u64,
    size: u64,
    comm_r: [u8; 32],
    dir: PathBuf,
}

fn read_sealed(dir: &Path) -> Res<Sealed> {
    let p = dir.join("sector.json");
    let v: serde_json::Value =
        serde_json::from_slice(&read_file(&p, "sector")?).bad_input(&format!("{}", p.display()))?;
    let field = |k: &str| -> Res<&serde_json::Value> {
        v.get(k).ok_or_else(|| Fail::Input(format!("{}: missing field {}", p.display(), k)))
    };
    let id = field("sector_id")?.as_u64().ok_or_else(|| Fail::Input(format!("{}: sector_id", p.display())))?;
    let size = field("sector_size")?.as_u64().ok_or_else(|| Fail::Input(format!("{}: sector_size", p.display())))?;
    let comm_r = hex32(field("comm_r")?.as_str().unwrap_or(""), &format!("{}: comm_r", p.display()))?;
    Ok(Sealed { id, size, comm_r, dir: dir.to_path_buf() })
}

fn parse_proof_name(s: &str) -> Res<RegisteredPoStProof> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| Fail::Input(format!("registered_proof '{}' is not a PoSt proof type", s)))
}

/// `post --kind window|winning --sectors DIR[,DIR..] --miner-id M --cache DIR --out DIR
///  [--randomness HEX | --seed N]`
pub fn cmd_post(a: &Args) -> Res<()> {
    a.check_known(&["kind", "sectors", "miner-id", "cache", "out", "randomness", "seed"])?;
    use_param_cache(&a.path("cache")?)?;
    let kind = a.req("kind")?.to_string();
    let miner = a.u64("miner-id")?;
    let prover = prover_id(miner);
    let out = a.path("out")?;
    mkdir(&out)?;
    let mut sealed: Vec<Sealed> = a.req("sectors")?.split(',').map(|d| read_sealed(Path::new(d))).collect::<Res<_>>()?;
    sealed.sort_by_key(|s| s.id);
    let size = sealed[0].size;
    if sealed.iter().any(|s| s.size != size) {
        return input("post: the sectors differ in size");
    }
    let rp = post_proof_for(&kind, size)?;
    let mut randomness = match a.opt("randomness") {
        Some(h) => hex32(h, "--randomness")?,
        None => {
            let mut r = [0u8; 32];
            ChaCha20Rng::seed_from_u64(a.u64_or("seed", 0)?).fill_bytes(&mut r);
            r
        }
    };
    randomness[31] &= 0x3f;
    crate::porep::need_params(rp.cache_params_path().failed("params path")?)?;

    // The challenged sectors: WinningPoSt draws them from the set; WindowPoSt proves all.
    let chosen: Vec<&Sealed> = if kind == "winning" {
        let idx = post::generate_winning_post_sector_challenge(rp, &randomness, sealed.len() as u64, prover)
            .failed("generate_winning_post_sector_challenge")?;
        idx.iter().map(|&i| &sealed[i as usize]).collect()
    } else {
        sealed.iter().collect()
    };
    let ids: Vec<SectorId> = chosen.iter().map(|s| SectorId::from(s.id)).collect();
    let challenges = post::generate_fallback_sector_challenges(rp, &randomness, &ids, prover)
        .failed("generate_fallback_sector_challenges")?;

    stage("post: vanilla proofs");
    let mut vanilla = Vec::new();
    let mut sectors = Vec::new();
    for (i, s) in chosen.iter().enumerate() {
        let sid = SectorId::from(s.id);
        let ch = challenges.get(&sid).ok_or_else(|| Fail::Failed(format!("no challenges for sector {}", s.id)))?;
        let info = PrivateReplicaInfo::new(rp, s.comm_r, s.dir.join("cache"), s.dir.join("sealed"));
        let v = post::generate_single_vanilla_proof(rp, sid, &info, ch).failed("generate_single_vanilla_proof")?;
        let name = format!("vanilla-{}-{}.bin", i, s.id);
        write_file(&out.join(&name), &v)?;
        vanilla.push(v);
        sectors.push(PostSector { sector_id: s.id, comm_r: hex::encode(s.comm_r), challenges: ch.clone(), vanilla: name });
    }

    stage("post: SNARK");
    let t = std::time::Instant::now();
    let proofs = if kind == "winning" {
        post::generate_winning_post_with_vanilla(rp, &randomness, prover, &vanilla)
    } else {
        post::generate_window_post_with_vanilla(rp, &randomness, prover, &vanilla)
    }
    .failed("generating the PoSt SNARK")?;
    let secs = t.elapsed().as_secs_f64();
    let proof = proofs[0].1.clone();
    write_file(&out.join("proof.bin"), &proof)?;
    let mut pj = PostJson {
        kind: kind.clone(),
        registered_proof: serde_json::to_value(rp).unwrap().as_str().unwrap_or_default().to_string(),
        sector_size: size,
        miner_id: miner,
        prover_id: hex::encode(prover),
        randomness: hex::encode(randomness),
        partitions: proof.len() / rp.single_partition_proof_len(),
        sectors,
        proof: "proof.bin".into(),
        valid: false,
    };
    pj.valid = verify(&pj, &proof)?;
    if !pj.valid {
        return Err(Fail::Failed("the reference PoSt proof does not verify".into()));
    }
    write_file(&out.join("post.json"), serde_json::to_string_pretty(&pj).unwrap().as_bytes())?;
    let mut summary = serde_json::to_value(&pj).unwrap();
    summary["seconds"] = serde_json::json!(secs);
    println!("{}", summary);
    Ok(())
}

fn verify(pj: &PostJson, proof: &[u8]) -> Res<bool> {
    let rp = parse_proof_name(&pj.registered_proof)?;
    let randomness = hex32(&pj.randomness, "post.json randomness")?;
    let prover = hex32(&pj.prover_id, "post.json prover_id")?;
    let mut replicas = BTreeMap::new();
    for s in &pj.sectors {
        replicas.insert(SectorId::from(s.sector_id), PublicReplicaInfo::new(rp, hex32(&s.comm_r, "post.json comm_r")?));
    }
    let r = if pj.kind == "winning" {
        post::verify_winning_post(&randomness, proof, &replicas, prover)
    } else {
        post::verify_window_post(&randomness, &[(rp, proof)], &replicas, prover)
    };
    match r {
        Ok(v) => Ok(v),
        Err(e) => {
            eprintln!("fil-oracle: verification error: {}", e.to_string().replace('\n', " "));
            Ok(false)
        }
    }
}

pub fn read_post(p: &Path) -> Res<(PostJson, PathBuf)> {
    let pj: PostJson = serde_json::from_slice(&read_file(p, "post")?).bad_input(&format!("{}", p.display()))?;
    let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok((pj, dir))
}

/// `verify-post --post post.json --proof FILE --cache DIR`: exit 0 valid, 1 invalid, 2 unusable.
pub fn cmd_verify_post(a: &Args) -> Res<()> {
    a.check_known(&["post", "proof", "cache"])?;
    use_param_cache(&a.path("cache")?)?;
    let (pj, _) = read_post(&a.path("post")?)?;
    let rp = parse_proof_name(&pj.registered_proof)?;
    let pp = a.path("proof")?;
    let proof = read_file(&pp, "proof")?;
    if proof.is_empty() || proof.len() % rp.single_partition_proof_len() != 0 {
        return input(format!("proof {}: {} bytes is not a whole number of partition proofs", pp.display(), proof.len()));
    }
    crate::porep::need_params(rp.cache_verifying_key_path().failed("vk path")?)?;
    if verify(&pj, &proof)? {
        println!("valid");
        Ok(())
    } else {
        Err(Fail::Failed("invalid: the proof does not verify".into()))
    }
}

/// Everything generate_*_post_with_vanilla derives before proving: the config, the vanilla
/// public params and public inputs, and the per-partition vanilla proofs.
struct Rebuilt<Tree: 'static + MerkleTreeTrait> {
    pp: fallback::PublicParams,
    pub_inputs: fallback::PublicInputs<<Tree::Hasher as Hasher>::Domain>,
    partitions: Vec<fallback::Proof<<Tree as MerkleTreeTrait>::Proof>>,
}

fn rebuild<Tree: 'static + MerkleTreeTrait>(pj: &PostJson, dir: &Path) -> Res<Rebuilt<Tree>> {
    let rp = parse_proof_name(&pj.registered_proof)?;
    let cfg: PoStConfig = rp.as_v1_config();
    let window = pj.kind == "window";
    let pp = if window {
        window_post_public_params::<Tree>(&cfg).failed("window_post_public_params")?
    } else {
        winning_post_public_params::<Tree>(&cfg).failed("winning_post_public_params")?
    };
    let mut vanilla: Vec<FallbackPoStSectorProof<Tree>> = Vec::new();
    for s in &pj.sectors {
        let p = dir.join(&s.vanilla);
        let b = read_file(&p, "vanilla proof")?;
        vanilla.push(bincode::deserialize(&b).bad_input(&format!("vanilla proof {}", p.display()))?);
    }
    let randomness = hex32(&pj.randomness, "randomness")?;
    let prover = hex32(&pj.prover_id, "prover_id")?;
    let pub_inputs = fallback::PublicInputs {
        randomness: as_safe_commitment(&randomness, "randomness").bad_input("randomness")?,
        prover_id: as_safe_commitment(&prover, "prover_id").bad_input("prover_id")?,
        sectors: vanilla.iter().map(|v| PublicSector { id: v.sector_id, comm_r: v.comm_r }).collect(),
        k: None,
    };
    let n = if window { vanilla.len().div_ceil(cfg.sector_count).max(1) } else { 1 };
    let partitions = partition_vanilla_proofs(&cfg, &pp, &pub_inputs, n, &vanilla).failed("partition_vanilla_proofs")?;
    Ok(Rebuilt { pp, pub_inputs, partitions })
}

fn post_inputs_inner<Tree: 'static + MerkleTreeTrait>(pj: &PostJson, dir: &Path) -> Res<Vec<Vec<Fr>>> {
    let r = rebuild::<Tree>(pj, dir)?;
    (0..r.partitions.len())
        .map(|k| FallbackPoStCompound::<Tree>::generate_public_inputs(&r.pub_inputs, &r.pp, Some(k)).failed("generate_public_inputs"))
        .collect()
}

/// The Fr public inputs of every partition (ONE excluded), as the verifier computes them.
pub fn post_inputs(pj: &PostJson, dir: &Path) -> Res<Vec<Vec<Fr>>> {
    crate::by_shape!(pj.sector_size, post_inputs_inner, pj, dir)
}

fn post_r1cs_inner<Tree: 'static + MerkleTreeTrait>(
    pj: &PostJson,
    dir: &Path,
    k: usize,
    out: Option<&Path>,
) -> Res<crate::r1cs::Summary> {
    let r = rebuild::<Tree>(pj, dir)?;
    if k >= r.partitions.len() {
        return input(format!("--partition {} out of range ({} partitions)", k, r.partitions.len()));
    }
    let c = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::circuit(
        &r.pub_inputs,
        Default::default(),
        &r.partitions[k],
        &r.pp,
        Some(k),
    )
    .failed("building the circuit")?;
    crate::r1cs::dump(|| Ok(c.clone()), true, out)
}

pub fn post_r1cs(pj: &PostJson, dir: &Path, k: usize, out: Option<&Path>) -> Res<crate::r1cs::Summary> {
    crate::by_shape!(pj.sector_size, post_r1cs_inner, pj, dir, k, out)
}

fn post_blank_inner<Tree: 'static + MerkleTreeTrait>(
    cfg: &PoStConfig,
    window: bool,
    out: Option<&Path>,
) -> Res<crate::r1cs::Summary> {
    let pp = if window {
        window_post_public_params::<Tree>(cfg).failed("window_post_public_params")?
    } else {
        winning_post_public_params::<Tree>(cfg).failed("winning_post_public_params")?
    };
    let c = <FallbackPoStCompound<Tree> as CompoundProof<FallbackPoSt<'_, Tree>, _>>::blank_circuit(&pp);
    crate::r1cs::dump(|| Ok(c.clone()), false, out)
}

pub fn post_blank(window: bool, size: u64, out: Option<&Path>) -> Res<crate::r1cs::Summary> {
    let cfg = post_proof_for(if window { "window" } else { "winning" }, size)?.as_v1_config();
    crate::by_shape!(size, post_blank_inner, &cfg, window, out)
}
