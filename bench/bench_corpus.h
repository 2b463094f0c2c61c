// SPDX-License-Identifier: Apache-2.0
// Real text for benchmarks: Chinese from the chinese-poetry data package,
// English from the license texts Debian ships in /usr/share/common-licenses.
#ifndef NEARDUP_BENCH_BENCH_CORPUS_H_
#define NEARDUP_BENCH_BENCH_CORPUS_H_

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace neardup::bench {

inline std::string DataDir() {
  const char* env = std::getenv("NEARDUP_DATA_DIR");
  return env ? env : NEARDUP_DEFAULT_DATA_DIR;
}

// Tang poems joined into documents of about `doc_bytes` bytes.
inline std::vector<std::string> ChineseDocs(size_t doc_bytes, size_t max_docs) {
  namespace fs = std::filesystem;
  std::vector<std::string> docs;
  std::string cur;
  const fs::path dir = fs::path(DataDir()) / "chinese-poetry/dist/quantangshi";
  for (int i = 0; i < 58000 && docs.size() < max_docs; i += 1000) {
    std::ifstream in(dir / ("poet.tang." + std::to_string(i) + ".json"));
    if (!in) break;
    auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) continue;
    for (const auto& poem : j) {
      for (const auto& p : poem["paragraphs"]) cur += p.get<std::string>();
      if (cur.size() >= doc_bytes) {
        docs.push_back(std::move(cur));
        cur.clear();
        if (docs.size() >= max_docs) break;
      }
    }
  }
  return docs;
}

// English prose split into documents of about `doc_bytes` bytes.
inline std::vector<std::string> EnglishDocs(size_t doc_bytes) {
  std::vector<std::string> docs;
  for (const char* name : {"GPL-3", "GFDL-1.3", "LGPL-2.1", "Apache-2.0", "MPL-2.0", "GPL-2"}) {
    std::ifstream in(std::string("/usr/share/common-licenses/") + name);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (size_t pos = 0; pos + doc_bytes <= text.size(); pos += doc_bytes) {
      size_t end = text.find(' ', pos + doc_bytes);
      docs.push_back(text.substr(pos, (end == std::string::npos ? text.size() : end) - pos));
    }
  }
  return docs;
}

}  // namespace neardup::bench

#endif  // NEARDUP_BENCH_BENCH_CORPUS_H_
