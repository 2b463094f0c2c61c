// SPDX-License-Identifier: Apache-2.0
#include "eval/t2s_chars.h"

#include <fstream>

#include "normalize/utf8.h"

#ifndef NEARDUP_DEFAULT_DATA_DIR
#define NEARDUP_DEFAULT_DATA_DIR "data"
#endif

namespace neardup::eval {

Result<std::unique_ptr<CharTableFolder>> CharTableFolder::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open OpenCC dictionary");
  std::unique_ptr<CharTableFolder> f(new CharTableFolder());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string_view key(line.data(), tab);
    size_t pos = 0;
    const int32_t cp = normalize::DecodeUtf8(key, &pos);
    if (cp < 0 || pos != key.size()) continue;  // phrases and bad lines
    std::string_view rest(line.data() + tab + 1, line.size() - tab - 1);
    const size_t end = rest.find_first_of(" \t\r");
    std::string value(rest.substr(0, end));
    if (!value.empty()) f->map_.emplace(static_cast<char32_t>(cp), std::move(value));
  }
  if (f->map_.empty()) return Status::Corruption(path + ": no single-character entries");
  return f;
}

Result<std::unique_ptr<CharTableFolder>> CharTableFolder::LoadT2S(const std::string& data_dir) {
  const std::string dir = data_dir.empty() ? NEARDUP_DEFAULT_DATA_DIR : data_dir;
  return Load(dir + "/opencc/data/dictionary/TSCharacters.txt");
}

void CharTableFolder::Fold(std::string_view in, std::string* out) const {
  size_t pos = 0;
  while (pos < in.size()) {
    const size_t start = pos;
    const int32_t cp = normalize::DecodeUtf8(in, &pos);
    if (cp >= 0x80) {
      auto it = map_.find(static_cast<char32_t>(cp));
      if (it != map_.end()) {
        out->append(it->second);
        continue;
      }
    }
    out->append(in.substr(start, pos - start));
  }
}

}  // namespace neardup::eval
