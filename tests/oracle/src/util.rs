//! Small shared helpers of the oracle: argument parsing, failures with the exit codes the
//! docs promise (2 = unusable input, 1 = failure or invalid proof), hex, sizes, prover ids,
//! stage lines on a terminal, and reading Curio's C1 wrapper.

use std::collections::HashMap;
use std::fmt::Display;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use base64::Engine;
use filecoin_proofs_api::seal::SealCommitPhase1Output;
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};

/// A failure and the exit code it ends the process with.
#[derive(Debug)]
pub enum Fail {
    /// Unusable input (missing/bad argument, unreadable or malformed file): exit 2.
    Input(String),
    /// The work itself failed (or a proof is invalid): exit 1.
    Failed(String),
}

pub type Res<T> = Result<T, Fail>;

pub fn input<T, S: Display>(msg: S) -> Res<T> {
    Err(Fail::Input(msg.to_string()))
}

/// Maps library errors (anyhow) to a one-line failure naming what was being done.
pub trait Ctx<T> {
    fn failed(self, what: &str) -> Res<T>;
    fn bad_input(self, what: &str) -> Res<T>;
}

impl<T, E: Display> Ctx<T> for Result<T, E> {
    fn failed(self, what: &str) -> Res<T> {
        self.map_err(|e| Fail::Failed(format!("{}: {}", what, one_line(&e.to_string()))))
    }
    fn bad_input(self, what: &str) -> Res<T> {
        self.map_err(|e| Fail::Input(format!("{}: {}", what, one_line(&e.to_string()))))
    }
}

fn one_line(s: &str) -> String {
    s.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// `--key value` pairs and bare `--flag`s after the subcommand.
pub struct Args {
    cmd: String,
    vals: HashMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    pub fn parse(cmd: &str, argv: &[String], flag_names: &[&str]) -> Res<Args> {
        let mut vals = HashMap::new();
        let mut flags = Vec::new();
        let mut i = 0;
        while i < argv.len() {
            let a = &argv[i];
            let Some(key) = a.strip_prefix("--") else {
                return input(format!("{}: unexpected argument '{}'", cmd, a));
            };
            if flag_names.contains(&key) {
                flags.push(key.to_string());
                i += 1;
                continue;
            }
            let Some(v) = argv.get(i + 1) else {
                return input(format!("{}: --{} needs a value", cmd, key));
            };
            vals.insert(key.to_string(), v.clone());
            i += 2;
        }
        Ok(Args { cmd: cmd.to_string(), vals, flags })
    }

    pub fn flag(&self, k: &str) -> bool {
        self.flags.iter().any(|f| f == k)
    }

    pub fn opt(&self, k: &str) -> Option<&str> {
        self.vals.get(k).map(String::as_str)
    }

    pub fn req(&self, k: &str) -> Res<&str> {
        self.opt(k).ok_or_else(|| Fail::Input(format!("{}: --{} is required", self.cmd, k)))
    }

    pub fn path(&self, k: &str) -> Res<PathBuf> {
        self.req(k).map(PathBuf::from)
    }

    pub fn u64(&self, k: &str) -> Res<u64> {
        let v = self.req(k)?;
        v.parse::<u64>()
            .map_err(|_| Fail::Input(format!("{}: --{} '{}' is not an unsigned integer", self.cmd, k, v)))
    }

    pub fn u64_or(&self, k: &str, d: u64) -> Res<u64> {
        if self.opt(k).is_some() {
            self.u64(k)
        } else {
            Ok(d)
        }
    }

    pub fn check_known(&self, known: &[&str]) -> Res<()> {
        for k in self.vals.keys() {
            if !known.contains(&k.as_str()) {
                return input(format!("{}: unknown option --{}", self.cmd, k));
            }
        }
        Ok(())
    }
}

/// "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" or a byte count.
pub fn parse_sector_size(s: &str) -> Res<u64> {
    let v = match s {
        "2KiB" => 2 << 10,
        "4KiB" => 4 << 10,
        "16KiB" => 16 << 10,
        "32KiB" => 32 << 10,
        "8MiB" => 8 << 20,
        "16MiB" => 16 << 20,
        "512MiB" => 512 << 20,
        "1GiB" => 1 << 30,
        "32GiB" => 32u64 << 30,
        "64GiB" => 64u64 << 30,
        other => other
            .parse::<u64>()
            .map_err(|_| Fail::Input(format!("--sector-size '{}' is not a known sector size", s)))?,
    };
    Ok(v)
}

/// The registered seal proof cuzk targets for a sector size (the V1_1 family Curio seals with).
pub fn seal_proof_for(size: u64) -> Res<RegisteredSealProof> {
    use RegisteredSealProof::*;
    Ok(match size {
        2048 => StackedDrg2KiBV1_1,
        8388608 => StackedDrg8MiBV1_1,
        536870912 => StackedDrg512MiBV1_1,
        34359738368 => StackedDrg32GiBV1_1,
        68719476736 => StackedDrg64GiBV1_1,
        _ => return input(format!("sector size {} has no registered seal proof", size)),
    })
}

/// WindowPoSt uses the V1_2 types (the grindability fix), WinningPoSt V1.
pub fn post_proof_for(kind: &str, size: u64) -> Res<RegisteredPoStProof> {
    use RegisteredPoStProof::*;
    Ok(match (kind, size) {
        ("window", 2048) => StackedDrgWindow2KiBV1_2,
        ("window", 8388608) => StackedDrgWindow8MiBV1_2,
        ("window", 536870912) => StackedDrgWindow512MiBV1_2,
        ("window", 34359738368) => StackedDrgWindow32GiBV1_2,
        ("window", 68719476736) => StackedDrgWindow64GiBV1_2,
        ("winning", 2048) => StackedDrgWinning2KiBV1,
        ("winning", 8388608) => StackedDrgWinning8MiBV1,
        ("winning", 536870912) => StackedDrgWinning512MiBV1,
        ("winning", 34359738368) => StackedDrgWinning32GiBV1,
        ("winning", 68719476736) => StackedDrgWinning64GiBV1,
        ("window" | "winning", _) => {
            return input(format!("sector size {} has no registered PoSt proof", size))
        }
        _ => return input(format!("--kind '{}' must be window or winning", kind)),
    })
}

/// prover_id = the ID address payload (unsigned LEB128 of the miner id) at the start of 32 zero
/// bytes, as Lotus/Curio build it.
pub fn prover_id(miner_id: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut v = miner_id;
    let mut i = 0;
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out[i] = b;
            break;
        }
        out[i] = b | 0x80;
        i += 1;
    }
    out
}

pub fn hex32(s: &str, what: &str) -> Res<[u8; 32]> {
    let s = s.strip_prefix("0x").unwrap_or(s);
    let v = hex::decode(s).map_err(|_| Fail::Input(format!("{}: '{}' is not hex", what, s)))?;
    if v.len() != 32 {
        return input(format!("{}: expected 32 bytes of hex, got {}", what, v.len()));
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(&v);
    Ok(out)
}

/// An Fr as 64 hex digits, big-endian (the integer's usual reading).
pub fn fr_hex_be(f: &blstrs::Scalar) -> String {
    hex::encode(f.to_bytes_be())
}

pub fn read_file(p: &Path, what: &str) -> Res<Vec<u8>> {
    std::fs::read(p).map_err(|e| Fail::Input(format!("{} {}: {}", what, p.display(), e)))
}

pub fn write_file(p: &Path, data: &[u8]) -> Res<()> {
    std::fs::write(p, data).map_err(|e| Fail::Failed(format!("writing {}: {}", p.display(), e)))
}

pub fn mkdir(p: &Path) -> Res<()> {
    std::fs::create_dir_all(p).map_err(|e| Fail::Failed(format!("creating {}: {}", p.display(), e)))
}

/// Prints a stage line on stderr when it is a terminal (quiet in pipes and logs).
pub fn stage(msg: &str) {
    if std::io::stderr().is_terminal() {
        eprintln!("fil-oracle: {}", msg);
    }
}

/// Curio's C1 envelope: `{"SectorNum", "Phase1Out" (base64 of the serde JSON), "SectorSize"}`.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct C1Wrapper {
    #[serde(rename = "SectorNum")]
    pub sector_num: u64,
    #[serde(rename = "Phase1Out")]
    pub phase1_out: String,
    #[serde(rename = "SectorSize")]
    pub sector_size: u64,
}

pub struct C1 {
    pub sector_num: u64,
    pub out: SealCommitPhase1Output,
}

pub fn read_c1(p: &Path) -> Res<C1> {
    let raw = read_file(p, "c1")?;
    let w: C1Wrapper = serde_json::from_slice(&raw)
        .map_err(|e| Fail::Input(format!("c1 {}: not the C1 wrapper JSON: {}", p.display(), e)))?;
    let json = base64::engine::general_purpose::STANDARD
        .decode(w.phase1_out.as_bytes())
        .map_err(|e| Fail::Input(format!("c1 {}: Phase1Out is not base64: {}", p.display(), e)))?;
    let out: SealCommitPhase1Output = serde_json::from_slice(&json).map_err(|e| {
        Fail::Input(format!("c1 {}: Phase1Out is not a SealCommitPhase1Output: {}", p.display(), e))
    })?;
    let size = u64::from(out.registered_proof.sector_size());
    if size != w.sector_size {
        return input(format!(
            "c1 {}: SectorSize {} does not match the registered proof's {}",
            p.display(),
            w.sector_size,
            size
        ));
    }
    Ok(C1 { sector_num: w.sector_num, out })
}

pub fn write_c1(p: &Path, sector_num: u64, out: &SealCommitPhase1Output) -> Res<()> {
    let json = serde_json::to_vec(out).failed("serializing SealCommitPhase1Output")?;
    let w = C1Wrapper {
        sector_num,
        phase1_out: base64::engine::general_purpose::STANDARD.encode(json),
        sector_size: u64::from(out.registered_proof.sector_size()),
    };
    write_file(p, &serde_json::to_vec(&w).failed("serializing the C1 wrapper")?)
}

/// Points filecoin-proofs' parameter cache at DIR. Must run before anything reads its settings
/// (they are read once, lazily, from the environment).
pub fn use_param_cache(dir: &Path) -> Res<()> {
    mkdir(dir)?;
    let abs = std::fs::canonicalize(dir).failed("resolving --cache")?;
    let mut s = abs.display().to_string();
    if !s.ends_with('/') {
        s.push('/');
    }
    std::env::set_var("FIL_PROOFS_PARAMETER_CACHE", s);
    Ok(())
}

/// First 32 hex digits of BLAKE2b-512 of a file: the digest parameters.json records.
pub fn param_digest(p: &Path) -> Res<String> {
    let mut f = std::fs::File::open(p).map_err(|e| Fail::Failed(format!("{}: {}", p.display(), e)))?;
    let mut st = blake2b_simd::Params::new().to_state();
    std::io::copy(&mut f, &mut st).map_err(|e| Fail::Failed(format!("{}: {}", p.display(), e)))?;
    Ok(st.finalize().to_hex()[..32].to_string())
}

/// Calls `$f::<Tree>(args)` for the registered sector sizes' tree shapes (as filecoin-proofs'
/// with_shape!, restricted to the five Filecoin sizes so the oracle compiles each generic path
/// four times rather than ten).
#[macro_export]
macro_rules! by_shape {
    ($size:expr, $f:ident, $($args:expr),*) => {{
        use filecoin_proofs::constants as fc;
        match $size {
            2048 => $f::<fc::SectorShape2KiB>($($args),*),
            8388608 => $f::<fc::SectorShape8MiB>($($args),*),
            536870912 => $f::<fc::SectorShape512MiB>($($args),*),
            34359738368 => $f::<fc::SectorShape32GiB>($($args),*),
            68719476736 => $f::<fc::SectorShape64GiB>($($args),*),
            s => $crate::util::input(format!("sector size {} is not a Filecoin sector size", s)),
        }
    }};
}
