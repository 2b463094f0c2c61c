// SPDX-License-Identifier: Apache-2.0
//
// TF-IDF weighting (Salton & Buckley 1988, "Term-weighting approaches in
// automatic text retrieval", IP&M 24(5)) for word features, with stop words.
//
//  - StopWords: jieba's stop_words.utf8 (one word a line), kept as feature
//    hashes so a Weighter can drop them.
//  - IdfTable: jieba's idf.utf8 ("word idf" a line). A word missing from it
//    gets the table's median IDF, as jieba.analyse does (UnknownIdf::kMedian),
//    or the mean (kMean).
//  - DocumentFrequencyTable: IDF learned from the corpus. Batch: add every
//    document, then fingerprint. Streaming: add each document as it arrives,
//    so later documents see running frequencies. idf = ln((N+1)/(df+1)) + 1
//    (the smoothed form, never zero or negative). Save()/Load() persist it
//    with the engine's state.
//  - TfIdfWeighter: drops stop words, merges repeated features and weights
//    each by count * idf. Dividing by the document length, as jieba does,
//    scales every weight alike and changes no SimHash bit, so it is skipped.
//    With top_n > 0 only the top_n heaviest features are kept (ties: smaller
//    hash first), jieba.analyse's topK.
//
// Thread safety: IdfTable and StopWords are immutable. DocumentFrequencyTable
// is internally synchronized (shared mutex): Idf() may run concurrently with
// AddDocument(). TfIdfWeighter::Apply is const and thread-safe.
#ifndef NEARDUP_FEATURES_TFIDF_H_
#define NEARDUP_FEATURES_TFIDF_H_

#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "features/feature.h"

namespace neardup::features {

class StopWords {
 public:
  // Loads one word per line (surrounding white space trimmed, lines with
  // white space inside kept whole). Errors: IOError.
  static Result<std::shared_ptr<const StopWords>> Load(const std::string& path);
  static std::shared_ptr<const StopWords> FromWords(const std::vector<std::string>& words);
  bool Contains(uint64_t hash) const { return hashes_.count(hash) != 0; }
  bool ContainsWord(std::string_view word) const { return Contains(HashFeature(word)); }
  size_t size() const { return hashes_.size(); }

 private:
  std::unordered_set<uint64_t> hashes_;
};

class IdfSource {
 public:
  virtual ~IdfSource() = default;
  virtual double Idf(uint64_t hash) const = 0;
};

enum class UnknownIdf { kMedian, kMean };

class IdfTable final : public IdfSource {
 public:
  // Errors: IOError; InvalidArgument (file:line) for a malformed line.
  static Result<std::shared_ptr<const IdfTable>> Load(const std::string& path,
                                                      UnknownIdf unknown = UnknownIdf::kMedian);
  double Idf(uint64_t hash) const override {
    auto it = idf_.find(hash);
    return it == idf_.end() ? default_idf_ : it->second;
  }
  double default_idf() const { return default_idf_; }
  size_t size() const { return idf_.size(); }

 private:
  std::unordered_map<uint64_t, float> idf_;
  double default_idf_ = 0;
};

class DocumentFrequencyTable final : public IdfSource {
 public:
  // Counts each distinct feature hash of one document once.
  void AddDocument(const std::vector<Feature>& features);
  double Idf(uint64_t hash) const override;
  uint64_t num_documents() const;
  uint64_t DocumentFrequency(uint64_t hash) const;
  size_t num_terms() const;

  // Binary, little-endian, checksummed (XXH3). Errors: IOError; Corruption.
  void Serialize(std::string* out) const;
  Status Deserialize(std::string_view in);  // replaces the contents
  // Adds a serialized table's counts to these (documents and each term's
  // frequency): the table of the two inputs together. Errors: Corruption.
  Status Merge(std::string_view in);
  Status Save(const std::string& path) const;
  Status Load(const std::string& path);

 private:
  static Status Parse(std::string_view in, uint64_t* docs,
                      std::unordered_map<uint64_t, uint64_t>* df);
  mutable std::shared_mutex mu_;
  uint64_t docs_ = 0;
  std::unordered_map<uint64_t, uint64_t> df_;
};

struct TfIdfOptions {
  int top_n = 0;  // 0: keep all
};

class TfIdfWeighter final : public Weighter {
 public:
  // `idf` must not be null; `stop_words` may be.
  TfIdfWeighter(std::shared_ptr<const IdfSource> idf, std::shared_ptr<const StopWords> stop_words,
                TfIdfOptions options = {});
  void Apply(std::vector<Feature>* features) const override;

 private:
  std::shared_ptr<const IdfSource> idf_;
  std::shared_ptr<const StopWords> stop_words_;
  TfIdfOptions options_;
};

// resources::JiebaDir() + "/idf.utf8" and "/stop_words.utf8".
std::string DefaultIdfPath();
std::string DefaultStopWordsPath();

}  // namespace neardup::features

#endif  // NEARDUP_FEATURES_TFIDF_H_
