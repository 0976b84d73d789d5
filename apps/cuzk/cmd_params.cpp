// `cuzk params info FILE [--points]` and `cuzk params check DIR parameters.json`: bellperson
// .params / .vk files as Filecoin's parameter cache holds them (docs/formats.md).
//   info   the shape from the headers alone (milliseconds whatever the size); --points also decodes
//          and checks every point (on the curve, not the identity).
//   check  every file parameters.json lists that DIR holds: its BLAKE2b digest against the listed
//          one, with a progress bar per file (a 44 GiB file takes minutes). Exit 0 all match,
//          1 a digest differs, 2 unusable input (a listed file missing is reported, not fatal,
//          unless none is present).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "zk/error.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/json_bounded.hpp"

namespace cuzk::cli {

namespace {

struct params_options {
  std::string file, dir, manifest;
  bool points = false, no_digest = false;
};

int info(const params_options& o) {
  namespace io = zk::io;
  auto t0 = now_ns();
  const bool is_vk = o.file.size() > 3 && o.file.compare(o.file.size() - 3, 3, ".vk") == 0;
  if (is_vk) {
    auto vk = io::read_bellperson_vk(o.file);
    std::printf("file: %s\nkind: bellperson verifying key\ninputs: %zu (ONE included; %u public)\nopen: %.3f ms\n",
                o.file.c_str(), vk.ic.size(), vk.n_public(), seconds_since(t0) * 1e3);
  } else {
    auto p = io::bellperson_params::open(o.file);
    const double t_open = seconds_since(t0);
    std::uint64_t n = p.domain_size();
    unsigned k = 0;
    while ((std::uint64_t{1} << k) < n) ++k;
    const std::uint64_t aux = p.l.count, inputs = p.n_inputs();
    std::printf("file: %s\nkind: bellperson parameters\nsize: %llu bytes\ninputs: %llu (ONE included)\naux: %llu\n"
                "domain: 2^%u (h: %u points)\na: %u points (%llu inputs + %llu of %llu aux dense)\n"
                "b: %u points in G1 and G2 (density %.1f%% of %llu variables)\nopen: %.3f ms\n",
                o.file.c_str(), (unsigned long long)p.size_bytes(), (unsigned long long)inputs,
                (unsigned long long)aux, k, p.h.count, p.a.count, (unsigned long long)inputs,
                (unsigned long long)(p.a.count - inputs), (unsigned long long)aux, p.b_g1.count,
                100.0 * double(p.b_g1.count) / double(inputs + aux), (unsigned long long)(inputs + aux), t_open * 1e3);
    if (o.points) {
      t0 = now_ns();
      progress_bar bar("check points " + std::filesystem::path(o.file).filename().string());
      const std::uint64_t total = p.size_bytes();
      std::uint64_t done = 0;
      for (auto [s, name] : {std::pair{&p.h, "h"}, {&p.l, "l"}, {&p.a, "a"}, {&p.b_g1, "b_g1"}}) {
        p.g1_section(*s, name);
        done += std::uint64_t{s->count} * 96;
        bar.update(done, total);
      }
      p.g2_section(p.b_g2, "b_g2");
      bar.done();
      std::printf("points: all on their curves, none at infinity (%.3f s)\n", seconds_since(t0));
    }
  }
  if (!o.no_digest) {
    progress_bar bar("digest " + std::filesystem::path(o.file).filename().string());
    auto d = io::parameters_json_digest(o.file, [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
    bar.done();
    std::printf("digest: %s\n", d.c_str());
  }
  return exit_ok;
}

int check(const params_options& o) {
  namespace fs = std::filesystem;
  // parameters.json lists a few dozen files: ~300 bytes each.
  const nlohmann::json j = zk::io::read_json_file(o.manifest, std::uint64_t{16} << 20, "parameters.json");
  if (!j.is_object()) throw zk::input_error(o.manifest + ": not a JSON object of file names");
  if (!fs::is_directory(o.dir)) throw zk::input_error(o.dir + ": not a directory");
  int checked = 0, bad = 0, missing = 0;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_object() || !it.value().contains("digest") || !it.value()["digest"].is_string())
      throw zk::input_error(o.manifest + ": " + it.key() + ": no \"digest\" string");
    const std::string want = it.value()["digest"].get<std::string>();
    // A plain file name inside DIR: "/etc/passwd" or "../x" would have it digest files elsewhere.
    const std::string& name = it.key();
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos)
      throw zk::input_error(o.manifest + ": \"" + name + "\": not a plain file name inside " + o.dir);
    const fs::path path = fs::path(o.dir) / name;
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (!fs::exists(st)) {
      ++missing;
      continue;
    }
    if (!fs::is_regular_file(st)) throw zk::input_error(path.string() + ": not a regular file");
    progress_bar bar("digest " + it.key());
    auto got = zk::io::parameters_json_digest(path.string(), [&](std::uint64_t d, std::uint64_t t) { bar.update(d, t); });
    bar.done();
    ++checked;
    if (got == want) {
      std::printf("ok       %s\n", it.key().c_str());
    } else {
      ++bad;
      std::printf("MISMATCH %s: digest %s, parameters.json says %s\n", it.key().c_str(), got.c_str(), want.c_str());
    }
  }
  std::printf("%d checked, %d mismatched, %d listed but not in %s\n", checked, bad, missing, o.dir.c_str());
  if (checked == 0) throw zk::input_error(o.dir + ": holds none of the files " + o.manifest + " lists");
  return bad ? exit_invalid : exit_ok;
}

}  // namespace

void register_params(CLI::App& app) {
  auto opt = std::make_shared<params_options>();
  auto* sub = app.add_subcommand("params", "bellperson .params/.vk files: info, check against parameters.json");
  sub->require_subcommand(1);
  auto* inf = sub->add_subcommand("info", "Shape of a .params (or .vk) file from its headers, and its digest");
  inf->add_option("file", opt->file, ".params or .vk file")->required();
  inf->add_flag("--points", opt->points, "also decode and check every point");
  inf->add_flag("--no-digest", opt->no_digest, "skip the digest (reads the whole file)");
  inf->callback([opt] { run_command([&] { return info(*opt); }); });
  auto* chk = sub->add_subcommand("check", "Check every listed file's digest (exit 0 all match, 1 mismatch)");
  chk->add_option("dir", opt->dir, "parameter cache directory")->required();
  chk->add_option("manifest", opt->manifest, "parameters.json")->required();
  chk->callback([opt] { run_command([&] { return check(*opt); }); });
}

}  // namespace cuzk::cli
