// SPDX-License-Identifier: Apache-2.0
//
// The C++ side of the Python overhead measurement (bench/python_bench.py):
// Engine::AddBatch over the records of a JSONL file, in chunks as
// neardup.Engine.add_many makes them, into a fresh engine per repetition.
// Prints one JSON line: documents, and per repetition the wall and process
// CPU seconds of the adds (the engine is created before the clock starts).
//
// usage: add_batch_bench FILE.jsonl [--threads N] [--chunk N] [--reps N] [--profile P]
//                        [--signals LIST] [--boilerplate-documents N] [--containment C]
#include <time.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "neardup/engine.h"

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

std::vector<neardup::Document> ReadDocs(const std::string& path) {
  std::vector<neardup::Document> docs;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    const auto& id = j["id"];
    docs.push_back({id.is_string() ? id.get<std::string>() : id.dump(), j["text"], 0});
  }
  return docs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: add_batch_bench FILE.jsonl [--threads N] [--chunk N] [--reps N] "
                 "[--profile P] [--signals LIST] [--boilerplate-documents N] [--containment C]\n";
    return 2;
  }
  int threads = 0, reps = 3;
  size_t chunk = 8192;
  std::string profile = "default", signals;
  int boilerplate = -1;     // the profile's
  double containment = -1;  // the profile's
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--threads") threads = std::stoi(argv[i + 1]);
    if (flag == "--chunk") chunk = std::stoul(argv[i + 1]);
    if (flag == "--reps") reps = std::stoi(argv[i + 1]);
    if (flag == "--profile") profile = argv[i + 1];
    if (flag == "--signals") signals = argv[i + 1];
    if (flag == "--boilerplate-documents") boilerplate = std::atoi(argv[i + 1]);
    if (flag == "--containment") containment = std::atof(argv[i + 1]);
  }
  const std::vector<neardup::Document> docs = ReadDocs(argv[1]);
  auto options = neardup::EngineOptions::FromProfile(profile);
  if (!options.ok()) return std::cerr << options.status().ToString() << "\n", 1;
  options->threads = threads;
  if (boilerplate >= 0) options->verify.boilerplate_documents = boilerplate;
  if (containment >= 0) options->verify.containment = containment;
  if (!signals.empty()) {
    auto parsed = neardup::ParseSignals(signals);
    if (!parsed.ok()) return std::cerr << parsed.status().ToString() << "\n", 1;
    options->signals = *parsed;
  }
  nlohmann::json out = {{"documents", docs.size()},
                        {"wall_s", nlohmann::json::array()},
                        {"cpu_s", nlohmann::json::array()}};
  for (int r = 0; r < reps; ++r) {
    auto engine = neardup::Engine::Create(*options);
    if (!engine.ok()) return std::cerr << engine.status().ToString() << "\n", 1;
    size_t duplicates = 0;
    const double cpu = CpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (size_t begin = 0; begin < docs.size(); begin += chunk) {
      const size_t n = std::min(chunk, docs.size() - begin);
      for (const auto& res : (*engine)->AddBatch({docs.data() + begin, n})) {
        if (!res.ok()) return std::cerr << res.status().ToString() << "\n", 1;
        duplicates += res->duplicate;
      }
    }
    out["wall_s"].push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    out["cpu_s"].push_back(CpuSeconds() - cpu);
    out["duplicates"] = duplicates;
  }
  std::cout << out.dump() << "\n";
  return 0;
}
