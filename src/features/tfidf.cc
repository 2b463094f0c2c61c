// SPDX-License-Identifier: Apache-2.0
#include "features/tfidf.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "resources/data_dir.h"
#include "resources/tables.h"
#include "tokenize/segmenter.h"

namespace neardup::features {
namespace {

constexpr char kDfMagic[8] = {'N', 'D', 'D', 'F', 'T', 'B', 'L', '1'};

void PutU64(uint64_t v, std::string* out) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out->append(b, 8);
}

uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

}  // namespace

std::string DefaultIdfPath() { return resources::JiebaFile(resources::kJiebaIdf); }
std::string DefaultStopWordsPath() { return resources::JiebaFile(resources::kJiebaStopWords); }

Result<std::shared_ptr<const StopWords>> StopWords::Load(const std::string& path) {
  NEARDUP_ASSIGN_OR_RETURN(std::vector<std::string> words, resources::LoadWordList(path));
  return FromWords(words);
}

std::shared_ptr<const StopWords> StopWords::FromWords(const std::vector<std::string>& words) {
  auto sw = std::make_shared<StopWords>();
  for (const auto& w : words) sw->hashes_.insert(HashFeature(w));
  return sw;
}

Result<std::shared_ptr<const IdfTable>> IdfTable::Load(const std::string& path,
                                                       UnknownIdf unknown) {
  auto t = std::make_shared<IdfTable>();
  std::vector<double> values;
  NEARDUP_RETURN_IF_ERROR(resources::ForEachIdfEntry(path, [&](std::string_view term, double v) {
    t->idf_[HashFeature(term)] = static_cast<float>(v);  // the last line wins
    return Status::OK();
  }));
  if (t->idf_.empty()) return Status::InvalidArgument(path + ": no IDF entries");
  values.reserve(t->idf_.size());
  for (const auto& [h, v] : t->idf_) values.push_back(v);
  if (unknown == UnknownIdf::kMedian) {
    // jieba: sorted(values)[len // 2]
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    t->default_idf_ = values[values.size() / 2];
  } else {
    double sum = 0;
    for (double v : values) sum += v;
    t->default_idf_ = sum / static_cast<double>(values.size());
  }
  return std::shared_ptr<const IdfTable>(std::move(t));
}

void DocumentFrequencyTable::AddDocument(const std::vector<Feature>& features) {
  std::vector<uint64_t> hashes;
  hashes.reserve(features.size());
  for (const auto& f : features) hashes.push_back(f.hash);
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  std::unique_lock lock(mu_);
  ++docs_;
  for (uint64_t h : hashes) ++df_[h];
}

double DocumentFrequencyTable::Idf(uint64_t hash) const {
  std::shared_lock lock(mu_);
  auto it = df_.find(hash);
  const double df = it == df_.end() ? 0.0 : static_cast<double>(it->second);
  return std::log((static_cast<double>(docs_) + 1.0) / (df + 1.0)) + 1.0;
}

uint64_t DocumentFrequencyTable::num_documents() const {
  std::shared_lock lock(mu_);
  return docs_;
}

uint64_t DocumentFrequencyTable::DocumentFrequency(uint64_t hash) const {
  std::shared_lock lock(mu_);
  auto it = df_.find(hash);
  return it == df_.end() ? 0 : it->second;
}

size_t DocumentFrequencyTable::num_terms() const {
  std::shared_lock lock(mu_);
  return df_.size();
}

void DocumentFrequencyTable::Serialize(std::string* out) const {
  std::vector<std::pair<uint64_t, uint64_t>> rows;
  uint64_t docs;
  {
    std::shared_lock lock(mu_);
    docs = docs_;
    rows.assign(df_.begin(), df_.end());
  }
  std::sort(rows.begin(), rows.end());
  std::string body;
  PutU64(docs, &body);
  PutU64(rows.size(), &body);
  for (auto [h, n] : rows) PutU64(h, &body), PutU64(n, &body);
  out->append(kDfMagic, 8);
  PutU64(XXH3_64bits(body.data(), body.size()), out);
  out->append(body);
}

Status DocumentFrequencyTable::Parse(std::string_view in, uint64_t* docs,
                                     std::unordered_map<uint64_t, uint64_t>* df) {
  if (in.size() < 32 || std::memcmp(in.data(), kDfMagic, 8) != 0) {
    return Status::Corruption("not a document-frequency table");
  }
  const uint64_t hash = GetU64(in.data() + 8);
  std::string_view body = in.substr(16);
  if (XXH3_64bits(body.data(), body.size()) != hash) return Status::Corruption("DF table checksum");
  *docs = GetU64(body.data());
  const uint64_t rows = GetU64(body.data() + 8);
  if (rows != (body.size() - 16) / 16 || (body.size() - 16) % 16 != 0) {
    return Status::Corruption("DF table size");
  }
  df->clear();
  df->reserve(rows);
  for (uint64_t i = 0; i < rows; ++i) {
    const char* p = body.data() + 16 + 16 * i;
    const uint64_t n = GetU64(p + 8);
    if (n == 0 || n > *docs) return Status::Corruption("DF count out of range");
    (*df)[GetU64(p)] = n;
  }
  return Status::OK();
}

Status DocumentFrequencyTable::Deserialize(std::string_view in) {
  uint64_t docs = 0;
  std::unordered_map<uint64_t, uint64_t> df;
  NEARDUP_RETURN_IF_ERROR(Parse(in, &docs, &df));
  std::unique_lock lock(mu_);
  docs_ = docs;
  df_ = std::move(df);
  return Status::OK();
}

Status DocumentFrequencyTable::Merge(std::string_view in) {
  uint64_t docs = 0;
  std::unordered_map<uint64_t, uint64_t> df;
  NEARDUP_RETURN_IF_ERROR(Parse(in, &docs, &df));
  std::unique_lock lock(mu_);
  docs_ += docs;
  for (const auto& [h, n] : df) df_[h] += n;
  return Status::OK();
}

Status DocumentFrequencyTable::Save(const std::string& path) const {
  std::string image;
  Serialize(&image);
  return base::AtomicWrite(path, image);
}

Status DocumentFrequencyTable::Load(const std::string& path) {
  std::string image;
  NEARDUP_RETURN_IF_ERROR(base::ReadWholeFile(path, &image));
  return Deserialize(image).WithContext(path);
}

TfIdfWeighter::TfIdfWeighter(std::shared_ptr<const IdfSource> idf,
                             std::shared_ptr<const StopWords> stop_words, TfIdfOptions options)
    : idf_(std::move(idf)), stop_words_(std::move(stop_words)), options_(options) {
  NEARDUP_CHECK(idf_ != nullptr);
}

void TfIdfWeighter::Apply(std::vector<Feature>* features) const {
  auto& f = *features;
  if (stop_words_) {
    f.erase(std::remove_if(f.begin(), f.end(),
                           [&](const Feature& x) { return stop_words_->Contains(x.hash); }),
            f.end());
  }
  std::sort(f.begin(), f.end(), [](const Feature& a, const Feature& b) { return a.hash < b.hash; });
  size_t w = 0;
  for (size_t r = 0; r < f.size();) {
    const uint64_t h = f[r].hash;
    float tf = 0;
    for (; r < f.size() && f[r].hash == h; ++r) tf += f[r].weight;
    f[w++] = {h, static_cast<float>(tf * idf_->Idf(h))};
  }
  f.resize(w);
  const size_t n = static_cast<size_t>(options_.top_n);
  if (n > 0 && f.size() > n) {
    std::nth_element(f.begin(), f.begin() + n, f.end(), [](const Feature& a, const Feature& b) {
      return a.weight != b.weight ? a.weight > b.weight : a.hash < b.hash;
    });
    f.resize(n);
    std::sort(f.begin(), f.end(),
              [](const Feature& a, const Feature& b) { return a.hash < b.hash; });
  }
}

}  // namespace neardup::features
