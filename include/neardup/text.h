// SPDX-License-Identifier: Apache-2.0
//
// The engine's front half as a tool: what a pipeline makes of a text, and
// jieba-compatible word segmentation. `neardup segment`, `truth` and
// `fingerprint` call these, so they cannot drift from what the engine does.
//
// Thread safety: every method is const and safe from many threads.
#ifndef NEARDUP_TEXT_H_
#define NEARDUP_TEXT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/options.h"
#include "neardup/status.h"

namespace neardup {
namespace pipeline {
class Pipeline;
}  // namespace pipeline
namespace sketch {
class MinHasher;
}  // namespace sketch

class TextPipeline {
 public:
  // The pipeline of `options` (profile, normalization, shingles, features).
  // Errors: as Engine::Create.
  static Result<std::unique_ptr<TextPipeline>> Create(const EngineOptions& options);
  ~TextPipeline();

  // Errors (all): InvalidArgument for ill-formed UTF-8, OutOfRange for a
  // text over max_document_bytes.
  Status Normalize(std::string_view text, std::string* out) const;
  // The ascending, distinct shingle hashes of the normalized text.
  Status Shingles(std::string_view text, std::vector<uint64_t>* out) const;
  // The words the profile's word features see: jieba words of Han, ICU
  // words elsewhere, after normalization; stop words dropped when the
  // profile drops them. Errors also: those of loading the dictionary.
  Status Words(std::string_view text, std::vector<std::string>* out) const;
  // The document fingerprint (SimHash-64 with word or n-gram features when
  // the pipeline has them, else XXH3-64 of the normalized text).
  Result<uint64_t> Fingerprint(std::string_view text) const;
  // The MinHash signature of the text's shingle set, as the engine's minhash
  // signal computes it: minhash.num_perm 32-bit values (minhash.scheme,
  // seed 1; docs/algorithms.md). The fraction of equal positions of two
  // signatures estimates the Jaccard similarity of the shingle sets. A text
  // without shingles gives 0xFFFFFFFF everywhere. O(shingles + num_perm)
  // for one permutation, O(shingles x num_perm) for the others.
  Status MinHash(std::string_view text, std::vector<uint32_t>* out) const;

 private:
  TextPipeline(std::unique_ptr<pipeline::Pipeline> p, std::unique_ptr<sketch::MinHasher> h);
  std::unique_ptr<pipeline::Pipeline> p_;
  std::unique_ptr<sketch::MinHasher> minhasher_;
};

// jieba's accurate mode (jieba.lcut(text, HMM=True)) on raw text: tokens
// include punctuation and white space, as jieba's command line prints them.
struct SegmenterOptions {
  std::string dict_dir;   // jieba.dict.utf8 and hmm_model.utf8; empty = the data package
  std::string dict_path;  // overrides the main dictionary
  std::string hmm_path;   // overrides the HMM model
  std::vector<std::string> user_dicts;
  bool hmm = true;
  bool use_cache = true;  // cache the built dictionary image
  std::string cache_dir;  // empty = ~/.cache/neardup
};

class Segmenter {
 public:
  // Errors: NotFound / InvalidArgument for dictionary files.
  static Result<std::unique_ptr<Segmenter>> Create(const SegmenterOptions& options);
  ~Segmenter();
  // Errors: InvalidArgument for ill-formed UTF-8.
  Status Cut(std::string_view text, std::vector<std::string>* tokens) const;
  // The default cache directory and jieba folder, for --help texts.
  static std::string DefaultCacheDir();
  static std::string DefaultDictDir();

 private:
  struct Impl;
  explicit Segmenter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_TEXT_H_
