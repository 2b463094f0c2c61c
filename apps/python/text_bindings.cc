// SPDX-License-Identifier: Apache-2.0
// The sketch functions of the Python bindings: neardup.Pipeline (the
// engine's front half, include/neardup/text.h) and the module functions
// fingerprint, minhash, normalize and explain, which use a pipeline (or an
// empty engine, for explain) cached per set of options.
#include <map>
#include <memory>
#include <mutex>

#include "base/parallel.h"
#include "neardup/text.h"
#include "python/common.h"

namespace neardup::python {
namespace {

// Built objects by their options' Python repr; a few entries at most.
template <typename T>
class Cache {
 public:
  std::shared_ptr<T> Get(const std::string& profile, std::optional<double> threshold,
                         const py::kwargs& kwargs) {
    py::list items;
    for (const auto& kv : kwargs) items.append(py::make_tuple(kv.first, kv.second));
    items.attr("sort")();
    const std::string key =
        py::repr(py::make_tuple(profile, threshold, items)).template cast<std::string>();
    if (auto it = built_.find(key); it != built_.end()) return it->second;
    const EngineOptions o = EngineOptionsOf(profile, threshold, kwargs);
    Result<std::unique_ptr<T>> r = [&] {
      py::gil_scoped_release release;
      return T::Create(o);
    }();
    std::shared_ptr<T> made = Take(std::move(r), NotFoundAs::kFile);
    if (built_.size() >= 8) built_.clear();
    built_[key] = made;
    return made;
  }

 private:
  std::map<std::string, std::shared_ptr<T>> built_;  // guarded by the GIL
};

Cache<TextPipeline>& Pipelines() {
  static auto* c = new Cache<TextPipeline>();
  return *c;
}
Cache<Engine>& Engines() {
  static auto* c = new Cache<Engine>();
  return *c;
}

// Calls fn(pipeline, text) with the GIL released and raises its error.
template <typename T, typename Fn>
T Run(const TextPipeline& p, TextArg text, Fn&& fn) {
  const std::string_view t = TextOf(text);
  T out{};
  Status s;
  {
    py::gil_scoped_release release;
    s = fn(p, t, &out);
  }
  Check(s);
  return out;
}

uint64_t Fingerprint(const TextPipeline& p, TextArg text) {
  return Run<uint64_t>(p, text, [](const TextPipeline& p, std::string_view t, uint64_t* out) {
    Result<uint64_t> r = p.Fingerprint(t);
    if (r.ok()) *out = *r;
    return r.status();
  });
}

std::vector<uint32_t> MinHash(const TextPipeline& p, TextArg text) {
  return Run<std::vector<uint32_t>>(
      p, text, [](const TextPipeline& p, std::string_view t, std::vector<uint32_t>* out) {
        return p.MinHash(t, out);
      });
}

std::string Normalize(const TextPipeline& p, TextArg text) {
  return Run<std::string>(p, text, [](const TextPipeline& p, std::string_view t, std::string* out) {
    return p.Normalize(t, out);
  });
}

// Signatures of many texts on `threads` threads (0 = every core).
std::vector<std::vector<uint32_t>> MinHashMany(const TextPipeline& p, TextsArg texts, int threads) {
  std::vector<std::string_view> views;
  py::list keep;  // the texts stay alive while the views are read
  for (py::handle t : texts) {
    views.push_back(TextOf(t));
    keep.append(t);
  }
  std::vector<std::vector<uint32_t>> sigs(views.size());
  std::vector<Status> status(views.size());
  {
    py::gil_scoped_release release;
    base::ParallelFor(views.size(), threads, 64, [&](int, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) status[i] = p.MinHash(views[i], &sigs[i]);
    });
  }
  for (size_t i = 0; i < views.size(); ++i) {
    if (!status[i].ok()) Raise(status[i].WithContext("item " + std::to_string(i)));
  }
  return sigs;
}

constexpr const char* kOptionsDoc =
    "\n\n`profile`, `threshold` and keyword options select the pipeline as for Engine; the\n"
    "built pipeline is cached per set of options.";

}  // namespace

void BindText(py::module_& m) {
  py::class_<TextPipeline, std::unique_ptr<TextPipeline>>(
      m, "Pipeline",
      "The engine's front half: what a profile makes of a text (normalization, shingles,\n"
      "fingerprint, MinHash). Pipeline(profile=\"default\", threshold=None, **options).\n"
      "Stateless and thread-safe; every method releases the GIL.")
      .def(py::init([](const std::string& profile, std::optional<double> threshold,
                       const py::kwargs& kwargs) {
             const EngineOptions o = EngineOptionsOf(profile, threshold, kwargs);
             Result<std::unique_ptr<TextPipeline>> r = [&] {
               py::gil_scoped_release release;
               return TextPipeline::Create(o);
             }();
             return Take(std::move(r), NotFoundAs::kFile);
           }),
           py::arg("profile") = "default", py::arg("threshold") = py::none())
      .def("normalize", &Normalize, py::arg("text"), "The normalized text (a str).")
      .def(
          "shingles",
          [](const TextPipeline& p, TextArg text) {
            return Run<std::vector<uint64_t>>(
                p, text, [](const TextPipeline& p, std::string_view t, std::vector<uint64_t>* o) {
                  return p.Shingles(t, o);
                });
          },
          py::arg("text"), "The ascending, distinct 64-bit shingle hashes (list of int).")
      .def(
          "words",
          [](const TextPipeline& p, TextArg text) {
            return Run<std::vector<std::string>>(
                p, text,
                [](const TextPipeline& p, std::string_view t, std::vector<std::string>* o) {
                  return p.Words(t, o);
                });
          },
          py::arg("text"), "The words the profile's word features see (list of str).")
      .def("fingerprint", &Fingerprint, py::arg("text"), "The document fingerprint (an int).")
      .def("minhash", &MinHash, py::arg("text"),
           "The MinHash signature: num_perm 32-bit ints; equal positions estimate Jaccard.")
      .def("minhash_many", &MinHashMany, py::arg("texts"), py::kw_only(), py::arg("threads") = 0,
           "Signatures of many texts, computed on `threads` threads (0 = every core).");

  m.def(
      "fingerprint",
      [](TextArg text, const std::string& profile, const py::kwargs& kw) {
        return Fingerprint(*Pipelines().Get(profile, std::nullopt, kw), text);
      },
      py::arg("text"), py::kw_only(), py::arg("profile") = "default",
      (std::string("The fingerprint of `text` (an int): SimHash-64 with the simhash signal,\n"
                   "else XXH3-64 of the normalized text.") +
       kOptionsDoc)
          .c_str());
  m.def(
      "minhash",
      [](TextArg text, const std::string& profile, std::optional<int> num_perm, py::kwargs kw) {
        if (num_perm) kw["num_perm"] = *num_perm;
        return MinHash(*Pipelines().Get(profile, std::nullopt, kw), text);
      },
      py::arg("text"), py::kw_only(), py::arg("profile") = "default",
      py::arg("num_perm") = py::none(),
      (std::string("The MinHash signature of `text`'s shingle set as the engine computes it: a\n"
                   "list of num_perm (default 128) 32-bit ints; the fraction of equal positions\n"
                   "of two signatures estimates the Jaccard similarity.") +
       kOptionsDoc)
          .c_str());
  m.def(
      "normalize",
      [](TextArg text, const std::string& profile, const py::kwargs& kw) {
        return Normalize(*Pipelines().Get(profile, std::nullopt, kw), text);
      },
      py::arg("text"), py::kw_only(), py::arg("profile") = "default",
      (std::string("`text` after the profile's normalization (a str).") + kOptionsDoc).c_str());
  m.def(
      "explain",
      [](TextArg a, TextArg b, const std::string& profile, std::optional<double> threshold,
         const py::kwargs& kw) -> ExplanationT {
        auto engine = Engines().Get(profile, threshold, kw);
        const std::string_view x = TextOf(a), y = TextOf(b);
        Result<Explanation> r = [&] {
          py::gil_scoped_release release;
          return engine->Explain(x, y);
        }();
        return ToPython(Take(std::move(r)));
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("profile") = "default",
      py::arg("threshold") = py::none(),
      (std::string("Why `a` and `b` are or are not near-duplicates (an Explanation).") +
       kOptionsDoc)
          .c_str());
}

}  // namespace neardup::python
