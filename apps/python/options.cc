// SPDX-License-Identifier: Apache-2.0
// EngineOptions from Python keyword arguments (common.h): each keyword names
// one typed field; string values go through the public parsers of
// include/neardup/options.h, so names and messages match the CLI's.
#include <algorithm>
#include <functional>
#include <map>

#include "python/common.h"

namespace neardup::python {
namespace {

using Setter = std::function<void(EngineOptions&, py::handle)>;

template <typename T>
T As(py::handle v, const std::string& name) {
  try {
    return v.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error("option '" + name + "' has the wrong type (" +
                         std::string(Py_TYPE(v.ptr())->tp_name) + ")");
  }
}

// A str, or a list of str joined with commas (signals).
std::string ListText(py::handle v, const std::string& name) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  std::string out;
  for (py::handle item : py::reinterpret_borrow<py::iterable>(v)) {
    out += (out.empty() ? "" : ",") + As<std::string>(item, name);
  }
  return out;
}

template <typename T>
T Parsed(Result<T> r, const std::string& name) {
  if (!r.ok()) throw py::value_error("option '" + name + "': " + r.status().message());
  return std::move(r).value();
}

// Setters by keyword. Ints, floats and bools are checked by pybind11's casts.
#define ND_INT(name, field)                                                  \
  {                                                                          \
    name, [](EngineOptions& o, py::handle v) { o.field = As<int>(v, name); } \
  }
#define ND_SIZE(name, field)                                                    \
  {                                                                             \
    name, [](EngineOptions& o, py::handle v) { o.field = As<size_t>(v, name); } \
  }
#define ND_FLOAT(name, field)                                                   \
  {                                                                             \
    name, [](EngineOptions& o, py::handle v) { o.field = As<double>(v, name); } \
  }
#define ND_BOOL(name, field)                                                  \
  {                                                                           \
    name, [](EngineOptions& o, py::handle v) { o.field = As<bool>(v, name); } \
  }
#define ND_STR(name, field)                                                          \
  {                                                                                  \
    name, [](EngineOptions& o, py::handle v) { o.field = As<std::string>(v, name); } \
  }
#define ND_PARSE(name, field, parser)                           \
  {                                                             \
    name, [](EngineOptions& o, py::handle v) {                  \
      o.field = Parsed(parser(As<std::string>(v, name)), name); \
    }                                                           \
  }

const std::map<std::string, Setter>& Setters() {
  static const auto* setters = new std::map<std::string, Setter>{
      // shingles and signals
      ND_PARSE("shingles", shingles, ParseShingles),
      {"signals",
       [](EngineOptions& o, py::handle v) {
         o.signals = Parsed(ParseSignals(ListText(v, "signals")), "signals");
       }},
      ND_INT("num_perm", minhash.num_perm),
      ND_PARSE("minhash_scheme", minhash.scheme, ParseMinHashScheme),
      ND_INT("bands", minhash.bands),
      ND_INT("rows", minhash.rows),
      ND_FLOAT("candidate_threshold", minhash.candidate_threshold),
      ND_INT("max_distance", simhash.max_distance),
      ND_INT("index_max_distance", simhash.index_max_distance),
      ND_INT("supershingle_min_equal", supershingle.min_equal),
      ND_FLOAT("spotsig_threshold", spotsig.threshold),
      ND_STR("spotsig_stop_words", spotsig.stop_words),
      ND_STR("imatch_idf_path", imatch.idf_path),
      // verification
      {"verify",
       [](EngineOptions& o, py::handle v) {
         ApplyVerifySpec(Parsed(ParseVerifySpec(As<std::string>(v, "verify")), "verify"), &o);
       }},
      ND_INT("short_chars", verify.short_chars),
      ND_BOOL("short_numbers", verify.short_numbers),
      ND_BOOL("short_words", verify.short_words),
      ND_INT("boilerplate_documents", verify.boilerplate_documents),
      ND_FLOAT("containment", verify.containment),
      ND_FLOAT("qbank_other_min", verify.qbank_other_min),
      ND_PARSE("keep", keep, ParseKeepPolicy),
      // normalization
      ND_PARSE("t2s", normalize.t2s, ParseT2S),
      ND_BOOL("drop_punctuation", normalize.drop_punctuation),
      ND_BOOL("replace_invalid_utf8", normalize.replace_invalid_utf8),
      // SimHash features
      ND_PARSE("features", features.kind, ParseFeatureKind),
      ND_INT("ngram", features.ngram),
      ND_INT("word_ngram", features.word_ngram),
      ND_INT("longest_sentences", features.longest_sentences),
      ND_PARSE("weights", features.weights, ParseWeights),
      ND_PARSE("idf", features.idf, ParseIdfSource),
      ND_BOOL("learn_idf", features.learn_idf),
      ND_BOOL("drop_stop_words", features.drop_stop_words),
      ND_INT("min_word_chars", features.min_word_chars),
      ND_INT("top_n", features.top_n),
      {"user_dicts",
       [](EngineOptions& o, py::handle v) {
         o.features.user_dicts = As<std::vector<std::string>>(v, "user_dicts");
       }},
      // limits and resources
      ND_SIZE("max_matches", max_matches),
      ND_SIZE("verify_per_cluster", verify_per_cluster),
      ND_BOOL("keep_forms", keep_forms),
      ND_SIZE("max_document_bytes", max_document_bytes),
      ND_INT("threads", threads),
      ND_STR("data_dir", data_dir),
  };
  return *setters;
}

#undef ND_INT
#undef ND_SIZE
#undef ND_FLOAT
#undef ND_BOOL
#undef ND_STR
#undef ND_PARSE

}  // namespace

std::vector<std::string> OptionNames() {
  std::vector<std::string> names;
  for (const auto& [name, setter] : Setters()) names.push_back(name);
  return names;
}

EngineOptions EngineOptionsOf(const std::string& profile, std::optional<double> threshold,
                              const py::kwargs& overrides) {
  const auto known = EngineOptions::ProfileNames();
  if (std::find(known.begin(), known.end(), profile) == known.end()) {
    // FromProfile's message names the known profiles (and retired ones).
    Status s = EngineOptions::FromProfile(profile).status();
    throw py::value_error(s.ok() ? "unknown profile '" + profile + "'" : s.message());
  }
  EngineOptions o = Take(EngineOptions::FromProfile(profile));
  // First: verify="KIND:T" sets the threshold over it, as the CLI's --verify over -t.
  if (threshold) o.threshold = *threshold;
  bool max_distance = false, threshold_set = threshold.has_value();
  for (const auto& [key, value] : overrides) {
    const std::string name = key.cast<std::string>();
    auto it = Setters().find(name);
    if (it == Setters().end()) {
      throw py::type_error("unexpected keyword argument '" + name +
                           "' (options: docs/python.md, neardup.option_names())");
    }
    if (value.is_none()) continue;  // None keeps the profile's value
    it->second(o, value);
    max_distance |= name == "max_distance";
    threshold_set |=
        name == "verify" && ParseVerifySpec(value.cast<std::string>())->threshold.has_value();
  }
  if (max_distance && !threshold_set && o.verify.kind == VerifyKind::kNone) {
    // As the CLI's -k: without a verifier the SimHash distance is the rule.
    o.threshold = 1.0 - o.simhash.max_distance / 64.0;
  }
  return o;
}

}  // namespace neardup::python
