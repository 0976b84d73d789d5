//! SnapDeals (EmptySectorUpdate) through filecoin-proofs' own API over a committed-capacity sector
//! `seal --cc` left on disk: seeded random deal data encoded into it (encode_into), the vanilla
//! partition proofs in the bincode form Curio sends (PartitionProof per partition), the reference
//! SNARK and its verification, and — rebuilt the way generate_empty_sector_update_proof_with_vanilla
//! builds them — the public inputs and the circuit of a partition for the R1CS dump.

use std::fs::File;
use std::path::{Path, PathBuf};

use blstrs::Scalar as Fr;
use filecoin_hashers::Domain;
use filecoin_proofs::constants::DefaultPieceDomain;
use filecoin_proofs::types::{MerkleTreeTrait, SectorUpdateConfig};
use filecoin_proofs::TreeRHasher;
use filecoin_proofs_api::seal;
use filecoin_proofs_api::update;
use filecoin_proofs_api::{PaddedBytesAmount, RegisteredUpdateProof, UnpaddedBytesAmount};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_update::{
    EmptySectorUpdate, EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PartitionProof, PublicInputs,
    PublicParams,
};

use crate::util::*;

/// What `update` writes to OUT/update.json, and what the other update commands read back.
#[derive(serde::Serialize, serde::Deserialize, Clone)]
pub struct UpdateJson {
    pub registered_proof: String,
    pub sector_size: u64,
    pub seed: u64,
    pub comm_r_old: String,
    pub comm_r_new: String,
    pub comm_d_new: String,
    pub partitions: usize,
    /// One bincode PartitionProof per partition, in partition order.
    pub vanilla: Vec<String>,
    pub proof: String,
    pub valid: bool,
}

/// The update circuit's .params and .vk paths. (RegisteredUpdateProof::cache_params_path and
/// cache_verifying_key_path name the PoRep's files: they go through its PoRepConfig.)
pub fn update_param_paths(size: u64) -> Res<(PathBuf, PathBuf)> {
    crate::by_shape!(size, update_param_paths_inner, size)
}

fn update_param_paths_inner<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(size: u64) -> Res<(PathBuf, PathBuf)> {
    use storage_proofs_core::parameter_cache::{
        parameter_cache_params_path, parameter_cache_verifying_key_path, CacheableParameters,
    };
    let id = <Compound<Tree> as CacheableParameters<Circ<Tree>, PublicParams>>::cache_identifier(
        &PublicParams::from_sector_size(size),
    );
    Ok((parameter_cache_params_path(&id), parameter_cache_verifying_key_path(&id)))
}

pub fn update_proof_for(size: u64) -> Res<RegisteredUpdateProof> {
    use RegisteredUpdateProof::*;
    Ok(match size {
        2048 => StackedDrg2KiBV1,
        8388608 => StackedDrg8MiBV1,
        536870912 => StackedDrg512MiBV1,
        34359738368 => StackedDrg32GiBV1,
        68719476736 => StackedDrg64GiBV1,
        _ => return input(format!("sector size {} has no registered update proof", size)),
    })
}

fn parse_proof_name(s: &str) -> Res<RegisteredUpdateProof> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| Fail::Input(format!("registered_proof '{}' is not an update proof type", s)))
}

fn sector_field<'a>(v: &'a serde_json::Value, p: &Path, k: &str) -> Res<&'a serde_json::Value> {
    v.get(k).ok_or_else(|| Fail::Input(format!("{}: missing field {}", p.display(), k)))
}

/// `update --sector DIR --seed N --cache PARAMS --out OUT`
pub fn cmd_update(a: &Args) -> Res<()> {
    a.check_known(&["sector", "seed", "cache", "out"])?;
    use_param_cache(&a.path("cache")?)?;
    let dir = a.path("sector")?;
    let seed = a.u64("seed")?;
    let out = a.path("out")?;
    let sp = dir.join("sector.json");
    let sv: serde_json::Value =
        serde_json::from_slice(&read_file(&sp, "sector")?).bad_input(&format!("{}", sp.display()))?;
    let size = sector_field(&sv, &sp, "sector_size")?
        .as_u64()
        .ok_or_else(|| Fail::Input(format!("{}: sector_size", sp.display())))?;
    let comm_r_old = hex32(sector_field(&sv, &sp, "comm_r")?.as_str().unwrap_or(""), "sector.json comm_r")?;
    let rp = update_proof_for(size)?;
    crate::porep::need_params(update_param_paths(size)?.0)?;
    mkdir(&out)?;
    let new_cache = out.join("cache");
    mkdir(&new_cache)?;

    // The deal data: one piece filling the sector, drawn from the seed.
    let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0x534e_4150_0000_0001);
    let n = u64::from(UnpaddedBytesAmount::from(PaddedBytesAmount(size))) as usize;
    let mut data = vec![0u8; n];
    rng.fill_bytes(&mut data);
    let piece = out.join("piece.bin");
    write_file(&piece, &data)?;
    let staged = out.join("staged");
    let seal_rp = seal_proof_for(size)?;
    let unpadded = UnpaddedBytesAmount(n as u64);
    stage("update: add piece");
    let pi = seal::generate_piece_commitment(seal_rp, File::open(&piece).failed("piece")?, unpadded)
        .failed("generate_piece_commitment")?;
    seal::add_piece(seal_rp, File::open(&piece).failed("piece")?, File::create(&staged).failed("staged")?, unpadded, &[])
        .failed("add_piece")?;
    let pieces = vec![pi];

    let replica = out.join("replica");
    File::create(&replica).failed("replica")?.set_len(size).failed("sizing the replica")?;
    let (sector_key, sector_key_cache) = (dir.join("sealed"), dir.join("cache"));
    stage("update: encode");
    let enc = update::empty_sector_update_encode_into(rp, &replica, &new_cache, &sector_key, &sector_key_cache, &staged, &pieces)
        .failed("empty_sector_update_encode_into")?;
    let (comm_r_new, comm_d_new) = (enc.comm_r_new, enc.comm_d_new);

    stage("update: vanilla partition proofs");
    let vanilla = update::generate_partition_proofs(
        rp, comm_r_old, comm_r_new, comm_d_new, &sector_key, &sector_key_cache, &replica, &new_cache,
    )
    .failed("generate_partition_proofs")?;
    if !update::verify_partition_proofs(rp, &vanilla, comm_r_old, comm_r_new, comm_d_new).failed("verify_partition_proofs")? {
        return Err(Fail::Failed("the vanilla partition proofs do not verify".into()));
    }
    let mut names = Vec::new();
    for (k, v) in vanilla.iter().enumerate() {
        let name = format!("vanilla-{}.bin", k);
        write_file(&out.join(&name), &v.0)?;
        names.push(name);
    }

    stage("update: SNARK");
    let t = std::time::Instant::now();
    let proof =
        update::generate_empty_sector_update_proof_with_vanilla(rp, vanilla.clone(), comm_r_old, comm_r_new, comm_d_new)
            .failed("generate_empty_sector_update_proof_with_vanilla")?;
    let secs = t.elapsed().as_secs_f64();
    write_file(&out.join("proof.bin"), &proof.0)?;
    let mut uj = UpdateJson {
        registered_proof: serde_json::to_value(rp).unwrap().as_str().unwrap_or_default().to_string(),
        sector_size: size,
        seed,
        comm_r_old: hex::encode(comm_r_old),
        comm_r_new: hex::encode(comm_r_new),
        comm_d_new: hex::encode(comm_d_new),
        partitions: vanilla.len(),
        vanilla: names,
        proof: "proof.bin".into(),
        valid: false,
    };
    uj.valid = verify(&uj, &proof.0)?;
    if !uj.valid {
        return Err(Fail::Failed("the reference update proof does not verify".into()));
    }
    // The encoded replica and its trees stay out of the fixture: only the vanilla proofs are read back.
    for p in [&piece, &staged] {
        let _ = std::fs::remove_file(p);
    }
    write_file(&out.join("update.json"), serde_json::to_string_pretty(&uj).unwrap().as_bytes())?;
    let mut summary = serde_json::to_value(&uj).unwrap();
    summary["seconds"] = serde_json::json!(secs);
    println!("{}", summary);
    Ok(())
}

fn verify(uj: &UpdateJson, proof: &[u8]) -> Res<bool> {
    let rp = parse_proof_name(&uj.registered_proof)?;
    let (old, new, d) = commitments(uj)?;
    match update::verify_empty_sector_update_proof(rp, proof, old, new, d) {
        Ok(v) => Ok(v),
        Err(e) => {
            eprintln!("fil-oracle: verification error: {}", e.to_string().replace('\n', " "));
            Ok(false)
        }
    }
}

fn commitments(uj: &UpdateJson) -> Res<([u8; 32], [u8; 32], [u8; 32])> {
    Ok((
        hex32(&uj.comm_r_old, "update.json comm_r_old")?,
        hex32(&uj.comm_r_new, "update.json comm_r_new")?,
        hex32(&uj.comm_d_new, "update.json comm_d_new")?,
    ))
}

pub fn read_update(p: &Path) -> Res<(UpdateJson, PathBuf)> {
    let uj: UpdateJson = serde_json::from_slice(&read_file(p, "update")?).bad_input(&format!("{}", p.display()))?;
    let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok((uj, dir))
}

/// `verify-update --update update.json --proof FILE --cache DIR`: exit 0 valid, 1 invalid, 2 unusable.
pub fn cmd_verify_update(a: &Args) -> Res<()> {
    a.check_known(&["update", "proof", "cache"])?;
    use_param_cache(&a.path("cache")?)?;
    let (uj, _) = read_update(&a.path("update")?)?;
    parse_proof_name(&uj.registered_proof)?;
    let pp = a.path("proof")?;
    let proof = read_file(&pp, "proof")?;
    let want = 192 * uj.partitions;
    if proof.len() != want {
        return input(format!("proof {}: {} bytes, expected {}", pp.display(), proof.len(), want));
    }
    crate::porep::need_params(update_param_paths(uj.sector_size)?.1)?;
    if verify(&uj, &proof)? {
        println!("valid");
        Ok(())
    } else {
        Err(Fail::Failed("invalid: the proof does not verify".into()))
    }
}

/// What generate_empty_sector_update_proof_with_vanilla derives before proving.
fn public_inputs(uj: &UpdateJson) -> Res<PublicInputs> {
    let rp = parse_proof_name(&uj.registered_proof)?;
    let (old, new, d) = commitments(uj)?;
    let cfg = SectorUpdateConfig::from_porep_config(&rp.as_v1_config());
    Ok(PublicInputs {
        k: 0,
        comm_r_old: <TreeRHasher as filecoin_hashers::Hasher>::Domain::try_from_bytes(&old).bad_input("comm_r_old")?,
        comm_d_new: DefaultPieceDomain::try_from_bytes(&d).bad_input("comm_d_new")?,
        comm_r_new: <TreeRHasher as filecoin_hashers::Hasher>::Domain::try_from_bytes(&new).bad_input("comm_r_new")?,
        h: cfg.h,
    })
}

/// The Fr public inputs of every partition (ONE excluded), as the verifier computes them.
pub fn update_inputs(uj: &UpdateJson) -> Res<Vec<Vec<Fr>>> {
    let pi = public_inputs(uj)?;
    let pp = PublicParams::from_sector_size(uj.sector_size);
    (0..pp.partition_count)
        .map(|k| {
            // The tree type only names the circuit; the inputs do not depend on it.
            type T = filecoin_proofs::constants::SectorShape2KiB;
            <Compound<T> as CompoundProof<EmptySectorUpdate<T>, Circ<T>>>::generate_public_inputs(&pi, &pp, Some(k))
            .failed("generate_public_inputs")
        })
        .collect()
}

type Compound<T> = EmptySectorUpdateCompound<T>;
type Circ<T> = EmptySectorUpdateCircuit<T>;

fn update_circuit<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    uj: &UpdateJson,
    dir: &Path,
    k: usize,
) -> Res<Circ<Tree>> {
    let pi = public_inputs(uj)?;
    let pp = PublicParams::from_sector_size(uj.sector_size);
    if k >= uj.vanilla.len() {
        return input(format!("--partition {} out of range ({} partitions)", k, uj.vanilla.len()));
    }
    let p = dir.join(&uj.vanilla[k]);
    let proof: PartitionProof<Tree> =
        bincode::deserialize(&read_file(&p, "vanilla proof")?).bad_input(&format!("vanilla proof {}", p.display()))?;
    <Compound<Tree> as CompoundProof<EmptySectorUpdate<Tree>, Circ<Tree>>>::circuit(&pi, (), &proof, &pp, Some(k))
        .failed("building the circuit")
}

fn update_r1cs_inner<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    uj: &UpdateJson,
    dir: &Path,
    k: usize,
    out: Option<&Path>,
) -> Res<crate::r1cs::Summary> {
    crate::r1cs::dump(|| update_circuit::<Tree>(uj, dir, k), true, out)
}

pub fn update_r1cs(uj: &UpdateJson, dir: &Path, k: usize, out: Option<&Path>) -> Res<crate::r1cs::Summary> {
    crate::by_shape!(uj.sector_size, update_r1cs_inner, uj, dir, k, out)
}

fn update_blank_inner<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    size: u64,
    out: Option<&Path>,
) -> Res<crate::r1cs::Summary> {
    let pp = PublicParams::from_sector_size(size);
    crate::r1cs::dump(|| Ok(Circ::<Tree>::blank(pp.clone())), false, out)
}

/// The blank circuit (what parameter generation synthesizes) of a registered update proof.
pub fn update_blank(size: u64, out: Option<&Path>) -> Res<crate::r1cs::Summary> {
    update_proof_for(size)?;
    crate::by_shape!(size, update_blank_inner, size, out)
}

pub fn update_params<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    size: u64,
    rng: &mut ChaCha20Rng,
) -> Res<()> {
    use storage_proofs_core::parameter_cache::CacheableParameters;
    let pp = PublicParams::from_sector_size(size);
    let blank = || Circ::<Tree>::blank(pp.clone());
    Compound::<Tree>::get_param_metadata(blank(), &pp).failed("metadata")?;
    Compound::<Tree>::get_groth_params(Some(&mut *rng), blank(), &pp).failed("generating groth params")?;
    Compound::<Tree>::get_verifying_key(Some(&mut *rng), blank(), &pp).failed("verifying key")?;
    Ok(())
}
