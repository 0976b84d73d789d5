//! fil-oracle: Filecoin's own Rust prover (rust-fil-proofs from crates.io, CPU only) as cuzk's
//! test oracle. Each subcommand calls the crates' public API the way Lotus/Curio do, and prints
//! one JSON line on stdout; files and formats are described in docs/formats.md.
//!
//! Exit codes: 0 success (or a valid proof), 1 failure (or an invalid proof), 2 unusable input.

mod graph;
mod params;
mod porep;
mod post;
mod r1cs;
mod shapes;
mod update;
mod util;

use util::*;

const USAGE: &str = "usage: fil-oracle COMMAND [--option value ...]
  params        --proof porep|window-post|winning-post|update --sector-size 2KiB --cache DIR [--seed N]
  seal          --sector-size 2KiB --seed N --miner-id M --sector-id S --out DIR [--cc]
  c2            --c1 DIR/c1.json --miner-id M --cache DIR --out proof.bin
  verify-seal   --c1 DIR/c1.json --miner-id M --proof proof.bin --cache DIR
  public-inputs --c1 DIR/c1.json --miner-id M [--partition K]
                | --post DIR/post.json [--partition K] | --update DIR/update.json [--partition K]
  r1cs          (--c1 DIR/c1.json --partition K | --post DIR/post.json --partition K
                 | --update DIR/update.json --partition K
                 | --shape NAME [--sector-size S]) (--out FILE | --digest)
  graph         --sector-size 2KiB|8MiB [--porep-id HEX] [--nodes A..B] [--api-version 1.1.0]
  post          --kind window|winning --sectors DIR[,DIR..] --miner-id M --cache DIR --out DIR
                [--randomness HEX | --seed N]
  verify-post   --post DIR/post.json --proof FILE --cache DIR
  update        --sector DIR (a seal --cc output) --seed N --cache DIR --out DIR
  verify-update --update DIR/update.json --proof FILE --cache DIR";

fn public_inputs(a: &Args) -> Res<()> {
    a.check_known(&["c1", "miner-id", "partition", "post", "update"])?;
    let (kind, all) = if let Some(p) = a.opt("update") {
        let (uj, _) = update::read_update(std::path::Path::new(p))?;
        ("update".to_string(), update::update_inputs(&uj)?)
    } else if let Some(p) = a.opt("post") {
        let (pj, dir) = post::read_post(std::path::Path::new(p))?;
        (pj.kind.clone() + "-post", post::post_inputs(&pj, &dir)?)
    } else {
        let c1 = read_c1(&a.path("c1")?)?;
        ("porep".to_string(), porep::porep_inputs(&c1, prover_id(a.u64("miner-id")?))?)
    };
    let parts: Vec<usize> = match a.opt("partition") {
        Some(_) => {
            let k = a.u64("partition")? as usize;
            if k >= all.len() {
                return input(format!("--partition {} out of range ({} partitions)", k, all.len()));
            }
            vec![k]
        }
        None => (0..all.len()).collect(),
    };
    let list: Vec<serde_json::Value> = parts
        .iter()
        .map(|&k| {
            serde_json::json!({
                "partition": k,
                "inputs": all[k].iter().map(fr_hex_be).collect::<Vec<_>>(),
            })
        })
        .collect();
    println!(
        "{}",
        serde_json::json!({"kind": kind, "partitions": all.len(), "encoding": "hex-be32", "public_inputs": list})
    );
    Ok(())
}

fn r1cs_cmd(a: &Args) -> Res<()> {
    a.check_known(&["c1", "miner-id", "partition", "post", "update", "shape", "sector-size", "out"])?;
    let out = a.opt("out").map(std::path::PathBuf::from);
    if out.is_none() && !a.flag("digest") {
        return input("r1cs: give --out FILE or --digest");
    }
    let out = out.as_deref();
    let s = if let Some(name) = a.opt("shape") {
        let size = match a.opt("sector-size") {
            Some(s) => Some(parse_sector_size(s)?),
            None => None,
        };
        shapes::blank(name, size, out)?
    } else if let Some(p) = a.opt("update") {
        let (uj, dir) = update::read_update(std::path::Path::new(p))?;
        update::update_r1cs(&uj, &dir, a.u64_or("partition", 0)? as usize, out)?
    } else if let Some(p) = a.opt("post") {
        let (pj, dir) = post::read_post(std::path::Path::new(p))?;
        post::post_r1cs(&pj, &dir, a.u64_or("partition", 0)? as usize, out)?
    } else {
        let c1 = read_c1(&a.path("c1")?)?;
        porep::porep_r1cs(&c1, a.u64_or("partition", 0)? as usize, out)?
    };
    println!("{}", serde_json::to_string(&s).unwrap());
    if s.satisfied == Some(false) {
        return Err(Fail::Failed(format!(
            "the witness does not satisfy constraint {}",
            s.first_unsatisfied.unwrap_or(0)
        )));
    }
    Ok(())
}

fn run(argv: &[String]) -> Res<()> {
    let Some(cmd) = argv.first() else {
        return input(USAGE);
    };
    let rest = &argv[1..];
    let a = Args::parse(cmd, rest, &["digest", "cc"])?;
    match cmd.as_str() {
        "params" => params::cmd_params(&a),
        "seal" => porep::cmd_seal(&a),
        "c2" => porep::cmd_c2(&a),
        "verify-seal" => porep::cmd_verify_seal(&a),
        "public-inputs" => public_inputs(&a),
        "r1cs" => r1cs_cmd(&a),
        "graph" => graph::cmd_graph(&a),
        "post" => post::cmd_post(&a),
        "verify-post" => post::cmd_verify_post(&a),
        "update" => update::cmd_update(&a),
        "verify-update" => update::cmd_verify_update(&a),
        "help" | "--help" | "-h" => {
            println!("{}", USAGE);
            Ok(())
        }
        other => input(format!("unknown command '{}'\n{}", other, USAGE)),
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match run(&argv) {
        Ok(()) => {}
        Err(Fail::Input(m)) => {
            eprintln!("fil-oracle: {}", m);
            std::process::exit(2);
        }
        Err(Fail::Failed(m)) => {
            eprintln!("fil-oracle: {}", m);
            std::process::exit(1);
        }
    }
}
