// Compiles our CUDA wrapper (cuda/*.cu) against sppark's headers (DEP_SPPARK_ROOT, set by the
// sppark crate's build script) and blst's (DEP_BLST_C_SRC: blst_t.hpp, sppark's host-side field
// type), for sm_90 with the CUDA runtime linked statically. The compiler is NVCC, which
// bench/sppark/build.sh sets to the project's nvcc (the pinned wheels, scripts/cuda-toolkit.sh);
// sppark's own build script reads NVCC too. Host-side field arithmetic links to blst's library.
use std::env;

fn main() {
    let sppark = env::var("DEP_SPPARK_ROOT").expect("DEP_SPPARK_ROOT: the sppark crate did not say where its headers are");
    let blst = env::var("DEP_BLST_C_SRC").expect("DEP_BLST_C_SRC: the blst crate did not say where its sources are");
    let arch = env::var("SPB_CUDA_ARCH").unwrap_or_else(|_| "90".to_string());
    for f in ["cuda/sppark_msm.cu", "cuda/sppark_ntt.cu", "cuda/timing.cuh"] {
        println!("cargo:rerun-if-changed={f}");
    }
    println!("cargo:rerun-if-env-changed=NVCC");
    println!("cargo:rerun-if-env-changed=SPB_CUDA_ARCH");
    let mut nvcc = cc::Build::new();
    nvcc.cuda(true)
        .cudart("static")
        .include(&sppark)
        .include(&blst)
        .define("FEATURE_BLS12_381", None)
        .define("TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE", None)
        .define("__ADX__", None) // blst is built with force-adx (Cargo.toml): its mulx_* names
        .flag("-std=c++17")
        .flag(format!("-gencode=arch=compute_{arch},code=sm_{arch}"))
        .flag("-Xcompiler")
        .flag("-Wno-subobject-linkage")
        .flag("--expt-relaxed-constexpr")
        .flag("-Wno-deprecated-gpu-targets")
        .file("cuda/sppark_msm.cu")
        .file("cuda/sppark_ntt.cu");
    nvcc.compile("cuzk_sppark_wrapper");
    // libcudart_static.a beside nvcc: lib64 (a system toolkit), lib (the wheels' layout)
    if let Ok(n) = env::var("NVCC") {
        if let Some(top) = std::path::Path::new(&n).parent().and_then(|b| b.parent()) {
            for d in ["lib64", "lib"] {
                if top.join(d).join("libcudart_static.a").exists() {
                    println!("cargo:rustc-link-search=native={}", top.join(d).display());
                    break;
                }
            }
        }
    }
}
