// SPDX-License-Identifier: Apache-2.0
// Accuracy of the MinHash schemes on real pairs: for every pair a dataset
// labels as near-duplicates (the leaderboard's datasets: pairs within a
// labelled cluster, or the truth pairs of a *_truth.jsonl file), the exact
// Jaccard of the default pipeline's shingle sets against each scheme's
// estimate over several seeds. Prints bias (mean of estimate - J), RMSE, and
// the mean squared error over the binomial J(1-J)/P that P independent
// permutations give in expectation (1.0 = as good as independent).
// Run: build/bench/minhash_accuracy_bench [--datasets-dir DIR] [--seeds N]
//        [--max-pairs N] [--num-perm P]
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/sorted_set.h"
#include "neardup/options.h"
#include "neardup/text.h"
#include "sketch/minhash.h"

namespace neardup {
namespace {

using Json = nlohmann::json;

std::string IdOf(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// id -> text of a JSONL corpus.
std::unordered_map<std::string, std::string> ReadTexts(const std::string& path) {
  std::unordered_map<std::string, std::string> texts;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const Json j = Json::parse(line, nullptr, false);
    if (!j.is_discarded()) texts[IdOf(j["id"])] = j["text"].get<std::string>();
  }
  return texts;
}

// The labelled pairs: {"a","b"} lines, or all pairs within each cluster of
// {"id","cluster"} lines (at most `max_pairs`).
std::vector<std::pair<std::string, std::string>> ReadPairs(const std::string& path,
                                                           size_t max_pairs) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::map<std::string, std::vector<std::string>> clusters;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line) && pairs.size() < max_pairs;) {
    const Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    if (j.contains("a")) {
      pairs.emplace_back(IdOf(j["a"]), IdOf(j["b"]));
    } else {
      clusters[IdOf(j["cluster"])].push_back(IdOf(j["id"]));
    }
  }
  for (const auto& [c, ids] : clusters) {
    for (size_t i = 0; i < ids.size(); ++i) {
      for (size_t k = i + 1; k < ids.size() && pairs.size() < max_pairs; ++k) {
        pairs.emplace_back(ids[i], ids[k]);
      }
    }
  }
  return pairs;
}

struct Scheme {
  const char* name;
  sketch::MinHashOptions options;
};

int Run(const std::string& dir, int seeds, size_t max_pairs, int num_perm) {
  const std::vector<std::pair<std::string, std::string>> sets = {
      {"tang", "tang_truth.jsonl"},        {"manpages", "manpages_labels.jsonl"},
      {"reprint", "reprint_labels.jsonl"}, {"english", "english_labels.jsonl"},
      {"mixed", "mixed_labels.jsonl"},     {"questions", "questions_labels.jsonl"},
      {"mail", "mail_labels.jsonl"}};
  const Scheme schemes[] = {
      {"permutations", {.num_perm = num_perm}},
      {"oph", {.num_perm = num_perm, .scheme = sketch::MinHashScheme::kOnePermutation}},
      {"cminhash", {.num_perm = num_perm, .scheme = sketch::MinHashScheme::kCirculant}}};
  auto pipeline = TextPipeline::Create(EngineOptions{});
  if (!pipeline.ok()) {
    std::fprintf(stderr, "%s\n", pipeline.status().ToString().c_str());
    return 1;
  }
  std::printf("P = %d, %d seeds per pair; MSE ratio = mean (est - J)^2 / mean J(1-J)/P\n", num_perm,
              seeds);
  std::printf("%-10s %7s %6s", "dataset", "pairs", "mean J");
  for (const auto& s : schemes) std::printf(" | %-12s bias    RMSE   ratio", s.name);
  std::printf("\n");
  for (const auto& [name, labels] : sets) {
    const auto texts = ReadTexts(dir + "/" + name + ".jsonl");
    const auto pairs = ReadPairs(dir + "/" + labels, max_pairs);
    std::vector<std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> shingled;
    double j_sum = 0, binom = 0;
    std::vector<double> truth;
    for (const auto& [a, b] : pairs) {
      auto ia = texts.find(a), ib = texts.find(b);
      if (ia == texts.end() || ib == texts.end()) continue;
      std::vector<uint64_t> sa, sb;
      if (!(*pipeline)->Shingles(ia->second, &sa).ok() ||
          !(*pipeline)->Shingles(ib->second, &sb).ok() || sa.empty() || sb.empty()) {
        continue;
      }
      const double j = SortedSetJaccard<uint64_t>(sa, sb);
      truth.push_back(j);
      j_sum += j;
      binom += j * (1 - j) / num_perm;
      shingled.emplace_back(std::move(sa), std::move(sb));
    }
    const double n = static_cast<double>(truth.size());
    std::printf("%-10s %7zu %6.3f", name.c_str(), truth.size(), j_sum / n);
    for (const auto& s : schemes) {
      double err = 0, sq = 0;
      for (int seed = 1; seed <= seeds; ++seed) {
        sketch::MinHashOptions o = s.options;
        o.seed = static_cast<uint64_t>(seed);
        auto h = sketch::MinHasher::Create(o).value();
        for (size_t i = 0; i < shingled.size(); ++i) {
          const double e =
              sketch::EstimateJaccard(h.Sketch(shingled[i].first), h.Sketch(shingled[i].second)) -
              truth[i];
          err += e;
          sq += e * e;
        }
      }
      const double m = n * seeds;
      std::printf(" | %-12s %+.4f %.4f %5.2f", "", err / m, std::sqrt(sq / m),
                  (sq / m) / (binom / n));
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace
}  // namespace neardup

int main(int argc, char** argv) {
  std::string dir = "out/datasets";
  int seeds = 5, num_perm = 128;
  size_t max_pairs = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--datasets-dir") dir = argv[i + 1];
    if (flag == "--seeds") seeds = std::atoi(argv[i + 1]);
    if (flag == "--max-pairs") max_pairs = static_cast<size_t>(std::atol(argv[i + 1]));
    if (flag == "--num-perm") num_perm = std::atoi(argv[i + 1]);
  }
  return neardup::Run(dir, seeds, max_pairs, num_perm);
}
