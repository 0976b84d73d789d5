//! sppark_bench: sppark's G1/G2 MSM and NTT timed on the GPU, inputs like cuzk's `bench`.
//!
//!   sppark_bench [--msm-g1 L,L..] [--msm-g2 L,L..] [--ntt L,L..] [--modes resident,host,stock]
//!                [--warmup N] [--reps N] [--dump DIR --dump-log L]
//!
//! Inputs are those `cuzk bench` makes, in kind: bases [a + j d] G for j < D (D = 2^18 in G1,
//! 2^15 in G2, repeated up to n, as gpu/include/cuzk/gpu/testgen.hpp does), uniform canonical
//! scalars below r, uniform Fr vectors for the NTT; never zeros. Each figure is the median (and
//! the minimum) of `reps` runs after `warmup`, timed with CUDA events (cuda/timing.cuh). The
//! three MSM modes (cuda/sppark_msm.cu) must agree on the point, or the row says MISMATCH.
//!
//! --dump DIR writes, at 2^L (--dump-log, default 20), the inputs and sppark's results for
//! cuzk_sppark_check, which computes the same with cuzk and compares (docs/gpu.md):
//!   msm_g1.points (n x 96 B), msm_g1.scalars (n x 32 B), msm_g1.sppark (144 B Jacobian),
//!   msm_g2.points (n x 192 B), msm_g2.scalars, msm_g2.sppark (288 B),
//!   ntt.in (n x 32 B Montgomery), ntt.fwd.sppark, ntt.inv.sppark (both of ntt.in).
//! stdout: a TSV table (one row per figure) after a header line; progress on stderr.

extern crate sppark; // links sppark's libsppark_cuda (select_gpu, all_gpus)

use blst::*;
use std::ffi::{c_char, c_int, c_void};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::Instant;

extern "C" {
    fn spb_msm(curve: c_int, mode: c_int, points: *const c_void, scalars: *const c_void, n: usize, warmup: c_int,
               reps: c_int, times: *mut f64, result: *mut c_void, err: *mut c_char, errlen: usize) -> c_int;
    fn spb_ntt(input: *const c_void, out: *mut c_void, log_n: u32, inverse: c_int, warmup: c_int, reps: c_int,
               times: *mut f64, err: *mut c_char, errlen: usize) -> c_int;
}

/// r, the BLS12-381 scalar field's modulus, little-endian 64-bit limbs.
const R: [u64; 4] = [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48];

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e3779b97f4a7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
    z ^ (z >> 31)
}

fn below_r(s: &[u64; 4]) -> bool {
    for i in (0..4).rev() {
        if s[i] != R[i] {
            return s[i] < R[i];
        }
    }
    false
}

/// A uniform nonzero value below r (canonical scalar, or an Fr in Montgomery form).
fn random_fr(st: &mut u64) -> [u64; 4] {
    loop {
        let mut s = [0u64; 4];
        for l in s.iter_mut() {
            *l = splitmix(st);
        }
        s[3] &= 0x7fffffffffffffff;
        if below_r(&s) && s != [0; 4] {
            return s;
        }
    }
}

fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(4).min(64)
}

/// n values of 32 bytes from random_fr, in parallel chunks; deterministic in (seed, n).
fn random_frs(n: usize, seed: u64) -> Vec<[u64; 4]> {
    let mut v = vec![[0u64; 4]; n];
    let chunk = n.div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (c, part) in v.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                let mut st = seed.wrapping_mul(0x632be59bd9b4e019).wrapping_add(c as u64);
                for x in part.iter_mut() {
                    *x = random_fr(&mut st);
                }
            });
        }
    });
    v
}

fn scalar_bytes(s: &[u64; 4]) -> [u8; 32] {
    let mut b = [0u8; 32];
    for i in 0..4 {
        b[8 * i..8 * i + 8].copy_from_slice(&s[i].to_le_bytes());
    }
    b
}

/// The operations of one group that the progression needs (blst's P1 and P2).
trait Group: Copy + Send + Sync + Default {
    type Aff: Copy + Send + Sync + Default;
    fn generator() -> Self;
    fn mul(&self, s: &[u8; 32]) -> Self;
    fn add(&self, o: &Self) -> Self;
    fn to_affine(v: &[Self]) -> Vec<Self::Aff>;
    fn on_curve(a: &Self::Aff) -> bool;
}

impl Group for blst_p1 {
    type Aff = blst_p1_affine;
    fn generator() -> Self {
        unsafe { *blst_p1_generator() }
    }
    fn mul(&self, s: &[u8; 32]) -> Self {
        let mut o = Self::default();
        unsafe { blst_p1_mult(&mut o, self, s.as_ptr(), 255) };
        o
    }
    fn add(&self, b: &Self) -> Self {
        let mut o = Self::default();
        unsafe { blst_p1_add_or_double(&mut o, self, b) };
        o
    }
    fn to_affine(v: &[Self]) -> Vec<Self::Aff> {
        let mut out = vec![Self::Aff::default(); v.len()];
        let ptrs: Vec<*const Self> = v.iter().map(|p| p as *const Self).collect();
        unsafe { blst_p1s_to_affine(out.as_mut_ptr(), ptrs.as_ptr(), v.len()) };
        out
    }
    fn on_curve(a: &Self::Aff) -> bool {
        unsafe { blst_p1_affine_on_curve(a) }
    }
}

impl Group for blst_p2 {
    type Aff = blst_p2_affine;
    fn generator() -> Self {
        unsafe { *blst_p2_generator() }
    }
    fn mul(&self, s: &[u8; 32]) -> Self {
        let mut o = Self::default();
        unsafe { blst_p2_mult(&mut o, self, s.as_ptr(), 255) };
        o
    }
    fn add(&self, b: &Self) -> Self {
        let mut o = Self::default();
        unsafe { blst_p2_add_or_double(&mut o, self, b) };
        o
    }
    fn to_affine(v: &[Self]) -> Vec<Self::Aff> {
        let mut out = vec![Self::Aff::default(); v.len()];
        let ptrs: Vec<*const Self> = v.iter().map(|p| p as *const Self).collect();
        unsafe { blst_p2s_to_affine(out.as_mut_ptr(), ptrs.as_ptr(), v.len()) };
        out
    }
    fn on_curve(a: &Self::Aff) -> bool {
        unsafe { blst_p2_affine_on_curve(a) }
    }
}

/// n bases: [a + (i mod D) d] G, D distinct points made by additions of [d] G in parallel
/// chunks (each chunk starts at [a] G + [b] ([d] G)), normalized in one batch per chunk.
fn bases<G: Group>(n: usize, distinct: usize, seed: u64) -> Vec<G::Aff> {
    let d = distinct.min(n);
    let mut st = seed;
    let a = scalar_bytes(&random_fr(&mut st));
    let step_s = scalar_bytes(&random_fr(&mut st));
    let g = G::generator();
    let (p0, step) = (g.mul(&a), g.mul(&step_s));
    let mut uniq = vec![G::Aff::default(); d];
    let chunk = d.div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (c, part) in uniq.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                let mut off = [0u8; 32];
                off[..8].copy_from_slice(&((c * chunk) as u64).to_le_bytes());
                let mut p = p0.add(&step.mul(&off));
                let mut jac = Vec::with_capacity(part.len());
                for _ in 0..part.len() {
                    jac.push(p);
                    p = p.add(&step);
                }
                part.copy_from_slice(&G::to_affine(&jac));
            });
        }
    });
    assert!(uniq.iter().all(G::on_curve), "a generated base is not on the curve");
    let mut out = vec![G::Aff::default(); n];
    let chunk = n.div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (c, part) in out.chunks_mut(chunk).enumerate() {
            let uniq = &uniq;
            s.spawn(move || {
                for (k, x) in part.iter_mut().enumerate() {
                    *x = uniq[(c * chunk + k) % d];
                }
            });
        }
    });
    out
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let m = s.len() / 2;
    if s.len() % 2 == 1 { s[m] } else { 0.5 * (s[m - 1] + s[m]) }
}

fn min(v: &[f64]) -> f64 {
    v.iter().cloned().fold(f64::INFINITY, f64::min)
}

fn errbuf() -> Vec<u8> {
    vec![0u8; 512]
}

fn err_text(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

fn as_bytes<T>(v: &[T]) -> &[u8] {
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) {
    let p = dir.join(name);
    if let Err(e) = std::fs::write(&p, bytes) {
        eprintln!("error: --dump: cannot write {}: {e}", p.display());
        exit(2);
    }
}

struct Opts {
    g1: Vec<u32>,
    g2: Vec<u32>,
    ntt: Vec<u32>,
    modes: Vec<(c_int, &'static str)>,
    warmup: i32,
    reps: i32,
    dump: Option<PathBuf>,
    dump_log: u32,
    print: bool, // rows to stdout (not for the dump-only pass)
}

fn usage() -> ! {
    eprintln!("usage: sppark_bench [--msm-g1 L,L..] [--msm-g2 L,L..] [--ntt L,L..] [--modes resident,host,stock] \
               [--warmup N] [--reps N] [--dump DIR [--dump-log L]]");
    exit(2);
}

fn parse() -> Opts {
    let mut o = Opts { g1: vec![], g2: vec![], ntt: vec![], modes: vec![(0, "resident"), (2, "stock mult_pippenger")], warmup: 1,
                       reps: 5, dump: None, dump_log: 20, print: true };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let val = |i: usize, name: &str| -> String {
        args.get(i + 1).cloned().unwrap_or_else(|| {
            eprintln!("error: {name} needs a value");
            exit(2)
        })
    };
    let logs = |s: String, name: &str| -> Vec<u32> {
        s.split(',').map(|x| match x.parse::<u32>() {
            Ok(l) if (1..=28).contains(&l) => l,
            _ => {
                eprintln!("error: {name}: '{x}' is not a log size in 1..28");
                exit(2)
            }
        }).collect()
    };
    let int = |s: String, name: &str| -> i32 {
        s.parse::<i32>().ok().filter(|&v| v >= 0).unwrap_or_else(|| {
            eprintln!("error: {name}: '{s}' is not a count");
            exit(2)
        })
    };
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--msm-g1" => o.g1 = logs(val(i, a), a),
            "--msm-g2" => o.g2 = logs(val(i, a), a),
            "--ntt" => o.ntt = logs(val(i, a), a),
            "--warmup" => o.warmup = int(val(i, a), a),
            "--reps" => o.reps = int(val(i, a), a).max(1),
            "--dump" => o.dump = Some(PathBuf::from(val(i, a))),
            "--dump-log" => o.dump_log = logs(val(i, a), a)[0],
            "--modes" => {
                o.modes = val(i, a).split(',').map(|m| match m {
                    "resident" => (0, "resident"),
                    "host" => (1, "resident-points host-scalars"),
                    "stock" => (2, "stock mult_pippenger"),
                    _ => {
                        eprintln!("error: --modes: '{m}' is not resident, host or stock");
                        exit(2)
                    }
                }).collect()
            }
            "-h" | "--help" => usage(),
            _ => {
                eprintln!("error: unknown argument '{a}'");
                usage()
            }
        }
        i += 2;
    }
    o
}

struct Row {
    what: String,
    log: u32,
    med: f64,
    min: f64,
    reps: i32,
    check: &'static str,
}

fn failed(rows: &[Row]) -> bool {
    rows.iter().any(|r| r.check == "MISMATCH" || r.check == "ERROR")
}

fn print_row(r: &Row) {
    println!("sppark\t{}\t{}\t{:.3}\t{:.3}\t{}\t{}", r.what, r.log, r.med, r.min, r.reps, r.check);
    std::io::stdout().flush().ok();
}

/// All modes at 2^L on the same bases and scalars; the modes' points must be equal (as group
/// elements, by blst).
fn bench_msm<G: Group>(curve: c_int, l: u32, o: &Opts, dump: Option<&Path>) -> Vec<Row> {
    let n = 1usize << l;
    let (name, distinct, pt_bytes) = if curve == 1 { ("msm_g1", 1usize << 18, 144) } else { ("msm_g2", 1usize << 15, 288) };
    let t = Instant::now();
    let b = bases::<G>(n, distinct, 1234 + l as u64);
    let s = random_frs(n, 99 + l as u64);
    eprintln!("  [{name} 2^{l}: inputs ready in {:.1} s]", t.elapsed().as_secs_f64());
    let mut rows = vec![];
    let mut first: Option<Vec<u8>> = None;
    for &(mode, mname) in &o.modes {
        let mut times = vec![0f64; o.reps as usize];
        let mut res = vec![0u8; pt_bytes];
        let mut err = errbuf();
        let rc = unsafe {
            spb_msm(curve, mode, b.as_ptr() as *const c_void, s.as_ptr() as *const c_void, n, o.warmup, o.reps,
                    times.as_mut_ptr(), res.as_mut_ptr() as *mut c_void, err.as_mut_ptr() as *mut c_char, err.len())
        };
        if rc != 0 {
            // one failed row (printed, the run goes on to the next figure); exit 1 at the end
            eprintln!("error: sppark {name} {mname} 2^{l}: {}", err_text(&err));
            let r = Row { what: format!("{name} {mname}"), log: l, med: 0.0, min: 0.0, reps: o.reps, check: "ERROR" };
            if o.print {
                print_row(&r);
            }
            rows.push(r);
            continue;
        }
        let same = match &first {
            None => {
                first = Some(res.clone());
                true
            }
            Some(f) => same_point(curve, f, &res),
        };
        let r = Row { what: format!("{name} {mname}"), log: l, med: median(&times), min: min(&times), reps: o.reps,
                      check: if same { "modes-agree" } else { "MISMATCH" } };
        if o.print {
            print_row(&r);
        }
        rows.push(r);
    }
    if let (Some(dir), Some(f)) = (dump, &first) {
        write_file(dir, &format!("{name}.points"), as_bytes(&b));
        write_file(dir, &format!("{name}.scalars"), as_bytes(&s));
        write_file(dir, &format!("{name}.sppark"), f);
    }
    rows
}

/// Two Jacobian points (sppark's layout = blst's blst_p1 / blst_p2) compared as group elements.
fn same_point(curve: c_int, a: &[u8], b: &[u8]) -> bool {
    unsafe {
        if curve == 1 {
            let (p, q) = (&*(a.as_ptr() as *const blst_p1), &*(b.as_ptr() as *const blst_p1));
            blst_p1_is_equal(p, q)
        } else {
            let (p, q) = (&*(a.as_ptr() as *const blst_p2), &*(b.as_ptr() as *const blst_p2));
            blst_p2_is_equal(p, q)
        }
    }
}

fn bench_ntt(l: u32, o: &Opts, dump: Option<&Path>) -> Vec<Row> {
    let n = 1usize << l;
    let v = random_frs(n, 7 + l as u64);
    let mut rows = vec![];
    for inverse in [0, 1] {
        let mut times = vec![0f64; o.reps as usize];
        let mut out = if dump.is_some() { vec![[0u64; 4]; n] } else { vec![] };
        let outp = if dump.is_some() { out.as_mut_ptr() as *mut c_void } else { std::ptr::null_mut() };
        let mut err = errbuf();
        let rc = unsafe {
            spb_ntt(v.as_ptr() as *const c_void, outp, l, inverse, o.warmup, o.reps, times.as_mut_ptr(),
                    err.as_mut_ptr() as *mut c_char, err.len())
        };
        let what = if inverse == 1 { "ntt inverse natural" } else { "ntt forward natural" };
        let ok = rc == 0;
        if !ok {
            eprintln!("error: sppark {what} 2^{l}: {}", err_text(&err));
        }
        let r = Row { what: what.to_string(), log: l, med: if ok { median(&times) } else { 0.0 },
                      min: if ok { min(&times) } else { 0.0 }, reps: o.reps, check: if ok { "-" } else { "ERROR" } };
        if o.print {
            print_row(&r);
        }
        rows.push(r);
        if let (Some(dir), true) = (dump, ok) {
            if inverse == 0 {
                write_file(dir, "ntt.in", as_bytes(&v));
                write_file(dir, "ntt.fwd.sppark", as_bytes(&out));
            } else {
                write_file(dir, "ntt.inv.sppark", as_bytes(&out));
            }
        }
    }
    rows
}

fn main() {
    let o = parse();
    if let Some(d) = &o.dump {
        if let Err(e) = std::fs::create_dir_all(d) {
            eprintln!("error: --dump: cannot create {}: {e}", d.display());
            exit(2);
        }
    }
    println!("side\tprimitive\tlog\tmedian_ms\tmin_ms\treps\tcheck");
    let mut bad = false;
    let dump_at = |l: u32| if l == o.dump_log { o.dump.as_deref() } else { None };
    // The dump size runs first when it is not among the timed sizes (reps 1, not printed as a figure).
    if let Some(d) = &o.dump {
        let l = o.dump_log;
        let small = Opts { g1: vec![], g2: vec![], ntt: vec![], modes: o.modes.clone(), warmup: 0, reps: 1, dump: None,
                           dump_log: l, print: false };
        if !o.g1.contains(&l) {
            bad |= failed(&bench_msm::<blst_p1>(1, l, &small, Some(d)));
        }
        if !o.g2.contains(&l) {
            bad |= failed(&bench_msm::<blst_p2>(2, l, &small, Some(d)));
        }
        if !o.ntt.contains(&l) {
            bad |= failed(&bench_ntt(l, &small, Some(d)));
        }
    }
    for &l in &o.g1 {
        bad |= failed(&bench_msm::<blst_p1>(1, l, &o, dump_at(l)));
    }
    for &l in &o.g2 {
        bad |= failed(&bench_msm::<blst_p2>(2, l, &o, dump_at(l)));
    }
    for &l in &o.ntt {
        bad |= failed(&bench_ntt(l, &o, dump_at(l)));
    }
    if bad {
        eprintln!("error: a row above failed (ERROR) or sppark's MSM modes disagree (MISMATCH)");
        exit(1);
    }
}
