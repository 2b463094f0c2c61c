// SPDX-License-Identifier: Apache-2.0
#include "verify/verifier.h"

#include <charconv>
#include <cstdio>
#include <map>
#include <vector>

#include "features/char_ngram.h"
#include "verify/edit_distance.h"
#include "verify/question_bank.h"
#include "verify/set_similarity.h"

namespace neardup::verify {
namespace {

std::string FormatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

Result<double> ParseNumber(std::string_view s, std::string_view what) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return Status::InvalidArgument("bad " + std::string(what) + " '" + std::string(s) + "'");
  }
  return v;
}

enum class Kind { kJaccard, kCosine, kLevenshtein, kLcs, kQuestionBank };

struct Spec {
  Kind kind;
  std::string name;
  double threshold;
  std::map<std::string, double, std::less<>> params;
};

class FeatureVerifier final : public Verifier {
 public:
  FeatureVerifier(Spec spec, std::unique_ptr<features::CharNgramExtractor> ex, std::string name)
      : spec_(std::move(spec)), ex_(std::move(ex)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  double threshold() const override { return spec_.threshold; }
  Result<Verdict> Verify(std::string_view a, std::string_view b) const override {
    std::vector<features::Feature> fa, fb;
    NEARDUP_RETURN_IF_ERROR(ex_->Extract(a, &fa));
    NEARDUP_RETURN_IF_ERROR(ex_->Extract(b, &fb));
    const double s = spec_.kind == Kind::kJaccard ? ShingleJaccard(fa, fb) : TfCosine(fa, fb);
    return Verdict{s, s >= spec_.threshold};
  }

 private:
  Spec spec_;
  std::unique_ptr<features::CharNgramExtractor> ex_;
  std::string name_;
};

class TextVerifier final : public Verifier {
 public:
  TextVerifier(Spec spec, std::string name) : spec_(std::move(spec)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  double threshold() const override { return spec_.threshold; }
  Result<Verdict> Verify(std::string_view a, std::string_view b) const override {
    if (spec_.kind == Kind::kQuestionBank) {
      const QuestionBankResult r = QuestionBankCompare(
          a, b, {.han_min = spec_.threshold, .other_min = spec_.params.at("other")});
      return Verdict{std::min(r.han_similarity, r.other_similarity), r.passed};
    }
    const std::u32string x = DecodeCodePoints(a), y = DecodeCodePoints(b);
    const double s =
        spec_.kind == Kind::kLevenshtein ? LevenshteinSimilarity(x, y) : LcsRatio(x, y);
    return Verdict{s, s >= spec_.threshold};
  }

 private:
  Spec spec_;
  std::string name_;
};

Result<Spec> ParseSpec(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::string_view head = parts[0];
  std::string_view threshold;
  if (const size_t colon = head.find(':'); colon != std::string_view::npos) {
    threshold = head.substr(colon + 1);
    head = head.substr(0, colon);
  }
  static const std::map<std::string_view, std::pair<Kind, double>> kKinds = {
      {"jaccard", {Kind::kJaccard, 0.8}},
      {"cosine", {Kind::kCosine, 0.9}},
      {"levenshtein", {Kind::kLevenshtein, 0.8}},
      {"lcs", {Kind::kLcs, 0.8}},
      {"qbank", {Kind::kQuestionBank, 0.8}}};
  auto kind = kKinds.find(head);
  if (kind == kKinds.end()) {
    return Status::InvalidArgument("unknown verifier '" + std::string(head) +
                                   "' (jaccard, cosine, levenshtein, lcs, qbank)");
  }
  Spec spec{kind->second.first, std::string(head), kind->second.second, {}};
  if (!threshold.empty()) {
    NEARDUP_ASSIGN_OR_RETURN(spec.threshold, ParseNumber(threshold, "verifier threshold"));
  }
  if (!(spec.threshold >= 0.0 && spec.threshold <= 1.0)) {
    return Status::InvalidArgument("verifier threshold must be in [0, 1]");
  }
  std::vector<std::string_view> allowed;
  if (spec.kind == Kind::kJaccard || spec.kind == Kind::kCosine) {
    spec.params = {{"ngram", spec.kind == Kind::kJaccard ? 5 : 3}, {"word_ngram", 1}};
  } else if (spec.kind == Kind::kQuestionBank) {
    spec.params = {{"other", 1.0}};
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    const std::string_view key = parts[i].substr(0, eq);
    auto it = spec.params.find(key);
    if (eq == std::string_view::npos || it == spec.params.end()) {
      return Status::InvalidArgument("verifier '" + spec.name + "' has no option '" +
                                     std::string(parts[i]) + "'");
    }
    NEARDUP_ASSIGN_OR_RETURN(it->second, ParseNumber(parts[i].substr(eq + 1), key));
  }
  return spec;
}

}  // namespace

Result<std::unique_ptr<Verifier>> CreateVerifier(std::string_view text) {
  NEARDUP_ASSIGN_OR_RETURN(Spec spec, ParseSpec(text));
  std::string name = spec.name + ":" + FormatNumber(spec.threshold);
  for (const auto& [k, v] : spec.params) name += "," + k + "=" + FormatNumber(v);
  if (spec.kind == Kind::kJaccard || spec.kind == Kind::kCosine) {
    NEARDUP_ASSIGN_OR_RETURN(auto ex,
                             features::CharNgramExtractor::Create(
                                 {.ngram = static_cast<int>(spec.params.at("ngram")),
                                  .word_ngram = static_cast<int>(spec.params.at("word_ngram"))}));
    return std::unique_ptr<Verifier>(
        new FeatureVerifier(std::move(spec), std::move(ex), std::move(name)));
  }
  if (spec.kind == Kind::kQuestionBank) {
    const double other = spec.params.at("other");
    if (!(other >= 0.0 && other <= 1.0)) {
      return Status::InvalidArgument("qbank other must be in [0, 1]");
    }
  }
  return std::unique_ptr<Verifier>(new TextVerifier(std::move(spec), std::move(name)));
}

}  // namespace neardup::verify
