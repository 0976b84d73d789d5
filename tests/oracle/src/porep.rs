//! PoRep through filecoin-proofs' own API: seal (pre-commit 1+2, commit 1) a sector of seeded
//! random data, C2, verify, the public inputs per partition, and the circuit of one partition
//! built exactly as seal_commit_phase2 builds it (StackedCompound::circuit over the C1 vanilla
//! proofs) for the R1CS dump.

use std::convert::TryInto;
use std::fs::File;
use std::path::Path;

use bellperson::Circuit;
use blstrs::Scalar as Fr;
use filecoin_hashers::Domain;
use filecoin_proofs::constants::{DefaultPieceDomain, DefaultPieceHasher};
use filecoin_proofs::types::{MerkleTreeTrait, PoRepConfig, VanillaSealProof};
use filecoin_proofs::as_safe_commitment;
use filecoin_proofs_api::seal::{self, SealCommitPhase1Output};
use filecoin_proofs_api::{PaddedBytesAmount, SectorId, UnpaddedBytesAmount};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_porep::stacked::{self, StackedCircuit, StackedCompound, StackedDrg};

use crate::util::*;

/// Ticket and interactive seed drawn from the seed after the sector's data.
pub struct SealInputs {
    pub data: Vec<u8>,
    pub ticket: [u8; 32],
    pub seed: [u8; 32],
}

pub fn seal_inputs(seed: u64, sector_size: u64) -> SealInputs {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let n = u64::from(UnpaddedBytesAmount::from(PaddedBytesAmount(sector_size))) as usize;
    let mut data = vec![0u8; n];
    rng.fill_bytes(&mut data);
    let mut ticket = [0u8; 32];
    rng.fill_bytes(&mut ticket);
    let mut s = [0u8; 32];
    rng.fill_bytes(&mut s);
    SealInputs { data, ticket, seed: s }
}

/// `seal --sector-size 2KiB --seed N --miner-id M --sector-id S --out DIR [--cc]`: with --cc a
/// committed-capacity sector (all-zero data, what SnapDeals later fills); ticket and seed are drawn
/// from the seed the same way.
pub fn cmd_seal(a: &Args) -> Res<()> {
    a.check_known(&["sector-size", "seed", "miner-id", "sector-id", "out"])?;
    let size = parse_sector_size(a.req("sector-size")?)?;
    let proof = seal_proof_for(size)?;
    let seed = a.u64("seed")?;
    let miner = a.u64("miner-id")?;
    let sector = a.u64("sector-id")?;
    let out = a.path("out")?;
    mkdir(&out)?;
    let cache = out.join("cache");
    mkdir(&cache)?;
    if std::env::var_os("FIL_PROOFS_PARENT_CACHE").is_none() {
        std::env::set_var("FIL_PROOFS_PARENT_CACHE", out.join("parents"));
    }
    let prover = prover_id(miner);
    let sid = SectorId::from(sector);
    let mut ins = seal_inputs(seed, size);
    let cc = a.flag("cc");
    if cc {
        ins.data.iter_mut().for_each(|b| *b = 0);
    }
    let unpadded = UnpaddedBytesAmount(ins.data.len() as u64);

    let piece = out.join("piece.bin");
    write_file(&piece, &ins.data)?;
    let staged = out.join("staged");
    let sealed = out.join("sealed");
    File::create(&sealed).failed("creating the sealed file")?;

    stage("seal: add piece");
    let pi = seal::generate_piece_commitment(proof, File::open(&piece).failed("piece")?, unpadded)
        .failed("generate_piece_commitment")?;
    let (_, _) = seal::add_piece(
        proof,
        File::open(&piece).failed("piece")?,
        File::create(&staged).failed("staged")?,
        unpadded,
        &[],
    )
    .failed("add_piece")?;
    let pieces = vec![pi];

    stage("seal: pre-commit 1");
    let t = std::time::Instant::now();
    let p1 = seal::seal_pre_commit_phase1(proof, &cache, &staged, &sealed, prover, sid, ins.ticket, &pieces)
        .failed("seal_pre_commit_phase1")?;
    stage("seal: pre-commit 2");
    let p2 = seal::seal_pre_commit_phase2(p1, &cache, &sealed).failed("seal_pre_commit_phase2")?;
    let (comm_r, comm_d) = (p2.comm_r, p2.comm_d);
    stage("seal: commit 1");
    let c1 = seal::seal_commit_phase1(&cache, &sealed, prover, sid, ins.ticket, ins.seed, p2, &pieces)
        .failed("seal_commit_phase1")?;
    let secs = t.elapsed().as_secs_f64();
    write_c1(&out.join("c1.json"), sector, &c1)?;
    let replica: Fr = c1.replica_id.into();
    let info = serde_json::json!({
        "registered_proof": format!("{:?}", proof),
        "sector_size": size,
        "miner_id": miner,
        "sector_id": sector,
        "seed": seed,
        "cc": cc,
        "prover_id": hex::encode(prover),
        "ticket": hex::encode(ins.ticket),
        "interactive_seed": hex::encode(ins.seed),
        "comm_d": hex::encode(comm_d),
        "comm_r": hex::encode(comm_r),
        "replica_id": hex::encode(replica.to_bytes_le()),
        "porep_id": hex::encode(proof.as_v1_config().porep_id),
        "piece_size": u64::from(pieces[0].size),
        "piece_commitment": hex::encode(pieces[0].commitment),
        "seal_seconds": secs,
    });
    write_file(&out.join("sector.json"), serde_json::to_string_pretty(&info).unwrap().as_bytes())?;
    println!("{}", serde_json::to_string(&info).unwrap());
    Ok(())
}

/// `c2 --c1 c1.json --miner-id M --cache DIR --out proof.bin`
pub fn cmd_c2(a: &Args) -> Res<()> {
    a.check_known(&["c1", "miner-id", "cache", "out"])?;
    use_param_cache(&a.path("cache")?)?;
    let c1 = read_c1(&a.path("c1")?)?;
    let prover = prover_id(a.u64("miner-id")?);
    let out = a.path("out")?;
    need_params(c1.out.registered_proof.cache_params_path().failed("params path")?)?;
    stage("c2: seal_commit_phase2");
    let t = std::time::Instant::now();
    let proof = seal::seal_commit_phase2(c1.out, prover, SectorId::from(c1.sector_num))
        .failed("seal_commit_phase2")?;
    let secs = t.elapsed().as_secs_f64();
    write_file(&out, &proof.proof)?;
    println!(
        "{}",
        serde_json::json!({"proof": out.display().to_string(), "bytes": proof.proof.len(), "seconds": secs})
    );
    Ok(())
}

pub fn need_params(p: std::path::PathBuf) -> Res<()> {
    if !p.exists() {
        return input(format!("parameters {} are missing (run fil-oracle params)", p.display()));
    }
    Ok(())
}

/// `verify-seal --c1 c1.json --miner-id M --proof proof.bin --cache DIR`: exit 0 valid,
/// 1 invalid, 2 unusable input.
pub fn cmd_verify_seal(a: &Args) -> Res<()> {
    a.check_known(&["c1", "miner-id", "proof", "cache"])?;
    use_param_cache(&a.path("cache")?)?;
    let c1 = read_c1(&a.path("c1")?)?;
    let prover = prover_id(a.u64("miner-id")?);
    let pp = a.path("proof")?;
    let proof = read_file(&pp, "proof")?;
    let rp = c1.out.registered_proof;
    let want = rp.single_partition_proof_len() * rp.partitions() as usize;
    if proof.len() != want {
        return input(format!("proof {}: {} bytes, expected {}", pp.display(), proof.len(), want));
    }
    need_params(rp.cache_verifying_key_path().failed("vk path")?)?;
    let o = &c1.out;
    match seal::verify_seal(rp, o.comm_r, o.comm_d, prover, SectorId::from(c1.sector_num), o.ticket, o.seed, &proof) {
        Ok(true) => {
            println!("valid");
            Ok(())
        }
        Ok(false) => Err(Fail::Failed("invalid: the proof does not verify".into())),
        Err(e) => Err(Fail::Failed(format!("invalid: {}", e.to_string().replace('\n', " ")))),
    }
}

/// The Fr public inputs of every partition, as get_seal_inputs computes them for the verifier
/// (ONE excluded).
pub fn porep_inputs(c1: &C1, prover: [u8; 32]) -> Res<Vec<Vec<Fr>>> {
    let o = &c1.out;
    seal::get_seal_inputs(o.registered_proof, o.comm_r, o.comm_d, prover, SectorId::from(c1.sector_num), o.ticket, o.seed)
        .failed("get_seal_inputs")
}

/// One partition's circuit, exactly as seal_commit_phase2 makes it.
fn porep_circuit<Tree: 'static + MerkleTreeTrait>(
    cfg: &PoRepConfig,
    out: &SealCommitPhase1Output,
    k: usize,
) -> Res<StackedCircuit<Tree, DefaultPieceHasher>> {
    let vanilla: Vec<Vec<VanillaSealProof<Tree>>> =
        out.vanilla_proofs.clone().try_into().bad_input("c1 vanilla proofs")?;
    if k >= vanilla.len() {
        return input(format!("--partition {} out of range (the C1 holds {})", k, vanilla.len()));
    }
    let replica_id: Fr = out.replica_id.into();
    let comm_r_safe = as_safe_commitment(&out.comm_r, "comm_r").bad_input("c1 comm_r")?;
    let comm_d_safe = DefaultPieceDomain::try_from_bytes(&out.comm_d).bad_input("c1 comm_d")?;
    let public_inputs = stacked::PublicInputs {
        replica_id: replica_id.into(),
        tau: Some(stacked::Tau { comm_d: comm_d_safe, comm_r: comm_r_safe }),
        k: None,
        seed: Some(out.seed),
    };
    let setup = compound_proof::SetupParams {
        vanilla_params: filecoin_proofs::parameters::setup_params(cfg).failed("setup_params")?,
        partitions: Some(usize::from(cfg.partitions)),
        priority: false,
    };
    let pp = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::setup(&setup)
    .failed("compound setup")?;
    StackedCompound::<Tree, DefaultPieceHasher>::circuit(&public_inputs, (), &vanilla[k], &pp.vanilla_params, Some(k))
        .failed("building the circuit")
}

fn porep_r1cs_inner<Tree: 'static + MerkleTreeTrait>(
    c1: &C1,
    k: usize,
    out: Option<&Path>,
) -> Res<crate::r1cs::Summary> {
    let cfg = c1.out.registered_proof.as_v1_config();
    let circuit = porep_circuit::<Tree>(&cfg, &c1.out, k)?;
    crate::r1cs::dump(|| Ok(circuit.clone()), true, out)
}

pub fn porep_r1cs(c1: &C1, k: usize, out: Option<&Path>) -> Res<crate::r1cs::Summary> {
    let size = u64::from(c1.out.registered_proof.sector_size());
    crate::by_shape!(size, porep_r1cs_inner, c1, k, out)
}

/// The blank circuit (no witness) of a registered proof's shape: what parameter generation sees.
fn porep_blank_inner<Tree: 'static + MerkleTreeTrait>(
    cfg: &PoRepConfig,
    out: Option<&Path>,
) -> Res<crate::r1cs::Summary> {
    let pp = filecoin_proofs::parameters::public_params::<Tree>(cfg).failed("public_params")?;
    let c = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
        StackedDrg<'_, Tree, DefaultPieceHasher>,
        _,
    >>::blank_circuit(&pp);
    crate::r1cs::dump(|| Ok(c.clone()), false, out)
}

pub fn porep_blank(size: u64, out: Option<&Path>) -> Res<crate::r1cs::Summary> {
    let cfg = seal_proof_for(size)?.as_v1_config();
    crate::by_shape!(size, porep_blank_inner, &cfg, out)
}

#[allow(dead_code)]
fn _assert_circuit<C: Circuit<Fr>>() {}
