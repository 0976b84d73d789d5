//! The R1CS dump: a bellperson ConstraintSystem that writes every constraint in the order the
//! circuit enforces it, in the binary form docs/formats.md ("fil-oracle r1cs") describes:
//!
//!   header  "CUZKR1CS" | u32 version=1 | u32 flags (bit 0: witness present)
//!           | u64 num_inputs (ONE included) | u64 num_aux | u64 num_constraints
//!   per constraint, A then B then C: u32 n, then n x (u64 var, 32 B coefficient)
//!   witness (flag bit 0): num_inputs x 32 B, then num_aux x 32 B
//!
//! All integers little-endian; field elements canonical little-endian. A variable is its input
//! index i (input 0 is ONE), or 2^63 | j for aux j. Terms are listed as bellperson's
//! LinearCombination iterates them (inputs by index, then aux by index; merged duplicates;
//! zero coefficients kept — the prover's density counts them).
//!
//! The trick for `--digest` on big circuits: the header's counts come first but are only known
//! at the end, so synthesis runs twice — once counting, once feeding the bytes straight into
//! SHA-256 — and nothing of the size of the R1CS is ever held. The witness (32 B per variable)
//! is held, since it follows the constraints. A file dump writes a placeholder header and seeks
//! back. Every constraint is also checked against the witness (A·w · B·w = C·w) when the
//! witness is present.

use std::io::Write;

use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar as Fr;
use ff::Field;

pub const MAGIC: &[u8; 8] = b"CUZKR1CS";
pub const VERSION: u32 = 1;
pub const AUX_BIT: u64 = 1 << 63;

pub struct DumpCs<W: Write> {
    pub out: W,
    /// Call the assignment closures (false: a blank circuit, structure only).
    pub with_witness: bool,
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
    pub num_inputs: u64,
    pub num_aux: u64,
    pub num_constraints: u64,
    pub unsatisfied: u64,
    pub first_unsatisfied: Option<u64>,
    pub io_error: Option<std::io::Error>,
    buf: Vec<u8>,
}

impl<W: Write> DumpCs<W> {
    pub fn new(out: W, with_witness: bool) -> Self {
        DumpCs {
            out,
            with_witness,
            inputs: Vec::new(),
            aux: Vec::new(),
            num_inputs: 0,
            num_aux: 0,
            num_constraints: 0,
            unsatisfied: 0,
            first_unsatisfied: None,
            io_error: None,
            buf: Vec::with_capacity(1 << 16),
        }
    }

    fn put_lc(&mut self, lc: &LinearCombination<Fr>) -> Fr {
        let n = lc.iter().count() as u32;
        self.buf.extend_from_slice(&n.to_le_bytes());
        let mut acc = Fr::ZERO;
        for (var, coeff) in lc.iter() {
            let (idx, val) = match var.get_unchecked() {
                Index::Input(i) => (i as u64, self.inputs.get(i).copied()),
                Index::Aux(j) => (AUX_BIT | j as u64, self.aux.get(j).copied()),
            };
            self.buf.extend_from_slice(&idx.to_le_bytes());
            self.buf.extend_from_slice(&coeff.to_bytes_le());
            if self.with_witness {
                acc += val.unwrap_or(Fr::ZERO) * coeff;
            }
        }
        acc
    }

    fn flush_buf(&mut self) {
        if self.io_error.is_none() {
            if let Err(e) = self.out.write_all(&self.buf) {
                self.io_error = Some(e);
            }
        }
        self.buf.clear();
    }

    pub fn finish(&mut self) {
        self.flush_buf();
    }

    pub fn header(&self) -> Vec<u8> {
        header_bytes(self.with_witness, self.num_inputs, self.num_aux, self.num_constraints)
    }

    fn summary(&self, sha256: Option<String>, file: Option<String>) -> Summary {
        Summary {
            num_inputs: self.num_inputs,
            num_aux: self.num_aux,
            num_constraints: self.num_constraints,
            witness: self.with_witness,
            satisfied: self.with_witness.then_some(self.unsatisfied == 0),
            first_unsatisfied: self.first_unsatisfied,
            sha256,
            file,
        }
    }
}

/// The witness section: inputs then aux, 32 B little-endian each.
fn write_witness<O: Write>(inputs: &[Fr], aux: &[Fr], o: &mut O) -> std::io::Result<()> {
    let mut b = Vec::with_capacity(1 << 16);
    for v in inputs.iter().chain(aux.iter()) {
        b.extend_from_slice(&v.to_bytes_le());
        if b.len() >= 1 << 16 {
            o.write_all(&b)?;
            b.clear();
        }
    }
    o.write_all(&b)
}

pub fn header_bytes(witness: bool, ni: u64, na: u64, nc: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(40);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    h.extend_from_slice(&(witness as u32).to_le_bytes());
    h.extend_from_slice(&ni.to_le_bytes());
    h.extend_from_slice(&na.to_le_bytes());
    h.extend_from_slice(&nc.to_le_bytes());
    h
}

impl<W: Write + Send> ConstraintSystem<Fr> for DumpCs<W> {
    type Root = Self;

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        if self.with_witness {
            self.aux.push(f()?);
        }
        self.num_aux += 1;
        Ok(Variable::new_unchecked(Index::Aux(self.num_aux as usize - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Fr, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        if self.with_witness {
            self.inputs.push(f()?);
        }
        self.num_inputs += 1;
        Ok(Variable::new_unchecked(Index::Input(self.num_inputs as usize - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LB: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
        LC: FnOnce(LinearCombination<Fr>) -> LinearCombination<Fr>,
    {
        let a = a(LinearCombination::zero());
        let b = b(LinearCombination::zero());
        let c = c(LinearCombination::zero());
        let va = self.put_lc(&a);
        let vb = self.put_lc(&b);
        let vc = self.put_lc(&c);
        if self.with_witness && va * vb != vc {
            self.unsatisfied += 1;
            if self.first_unsatisfied.is_none() {
                self.first_unsatisfied = Some(self.num_constraints);
            }
        }
        self.num_constraints += 1;
        if self.buf.len() >= 1 << 16 {
            self.flush_buf();
        }
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }
}

/// A Write that only counts (the first, counting pass of `--digest`).
pub struct Discard;

impl Write for Discard {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A Write that feeds SHA-256.
pub struct ShaWriter(pub sha2::Sha256);

impl Write for ShaWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        sha2::Digest::update(&mut self.0, b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a dump reports (printed as JSON).
#[derive(serde::Serialize)]
pub struct Summary {
    pub num_inputs: u64,
    pub num_aux: u64,
    pub num_constraints: u64,
    pub witness: bool,
    pub satisfied: Option<bool>,
    pub first_unsatisfied: Option<u64>,
    pub sha256: Option<String>,
    pub file: Option<String>,
}

/// Synthesizes `make()`'s circuit (after allocating ONE as input 0, as bellperson's prover
/// does) into a file or into a digest. `make` is called once for a file, twice for a digest.
pub fn dump<C, M>(
    make: M,
    with_witness: bool,
    out: Option<&std::path::Path>,
) -> crate::util::Res<Summary>
where
    C: bellperson::Circuit<Fr>,
    M: Fn() -> crate::util::Res<C>,
{
    use crate::util::{Ctx, Fail};
    use std::io::{Seek, SeekFrom};

    fn synth<C: bellperson::Circuit<Fr>, W: Write + Send>(
        c: C,
        cs: &mut DumpCs<W>,
    ) -> crate::util::Res<()> {
        cs.alloc_input(|| "ONE", || Ok(Fr::ONE)).failed("allocating ONE")?;
        c.synthesize(cs).failed("synthesis")?;
        cs.finish();
        if let Some(e) = cs.io_error.take() {
            return Err(Fail::Failed(format!("writing the dump: {}", e)));
        }
        Ok(())
    }

    match out {
        Some(path) => {
            let f = std::fs::File::create(path)
                .map_err(|e| Fail::Failed(format!("creating {}: {}", path.display(), e)))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            w.write_all(&header_bytes(with_witness, 0, 0, 0)).failed("writing the dump")?;
            let mut cs = DumpCs::new(w, with_witness);
            synth(make()?, &mut cs)?;
            let mut w = std::mem::replace(&mut cs.out, std::io::BufWriter::new(devnull()?));
            if with_witness {
                write_witness(&cs.inputs, &cs.aux, &mut w).failed("writing the witness")?;
            }
            let mut f = w.into_inner().map_err(|e| Fail::Failed(e.to_string()))?;
            f.seek(SeekFrom::Start(0)).failed("writing the header")?;
            f.write_all(&cs.header()).failed("writing the header")?;
            Ok(cs.summary(None, Some(path.display().to_string())))
        }
        None => {
            let mut count = DumpCs::new(Discard, false);
            crate::util::stage("r1cs: counting pass");
            synth(make()?, &mut count)?;
            let mut sha = sha2::Sha256::default();
            sha2::Digest::update(
                &mut sha,
                header_bytes(with_witness, count.num_inputs, count.num_aux, count.num_constraints),
            );
            crate::util::stage("r1cs: hashing pass");
            let mut cs = DumpCs::new(ShaWriter(sha), with_witness);
            synth(make()?, &mut cs)?;
            if (cs.num_inputs, cs.num_aux, cs.num_constraints)
                != (count.num_inputs, count.num_aux, count.num_constraints)
            {
                return Err(Fail::Failed("the two synthesis passes disagree".into()));
            }
            let mut w = std::mem::replace(&mut cs.out, ShaWriter(sha2::Sha256::default()));
            if with_witness {
                write_witness(&cs.inputs, &cs.aux, &mut w).failed("hashing the witness")?;
            }
            let d = sha2::Digest::finalize(w.0);
            Ok(cs.summary(Some(hex::encode(d)), None))
        }
    }
}

/// A stand-in File, only to move the real writer out of the DumpCs.
fn devnull() -> crate::util::Res<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .map_err(|e| crate::util::Fail::Failed(format!("/dev/null: {}", e)))
}
