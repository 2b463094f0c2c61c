// SPDX-License-Identifier: Apache-2.0
#include "normalize/t2s.h"

#include <map>
#include <mutex>
#include <unordered_map>

#include "tokenize/file_util.h"

namespace neardup::normalize {

std::string DefaultOpenccDir() { return tokenize::DataDir() + "/opencc/data/dictionary"; }

Result<std::unique_ptr<T2SFolder>> T2SFolder::Load(const std::string& dir) {
  const std::string d = dir.empty() ? DefaultOpenccDir() : dir;
  return LoadFiles({d + "/TSPhrases.txt", d + "/TSCharacters.txt"});
}

Result<std::unique_ptr<T2SFolder>> T2SFolder::LoadFiles(const std::vector<std::string>& paths) {
  std::unique_ptr<T2SFolder> f(new T2SFolder());
  std::unordered_map<std::u32string, int32_t> index;
  std::vector<std::u32string> keys;
  std::vector<int32_t> values;
  std::string text;
  for (const auto& path : paths) {
    NEARDUP_RETURN_IF_ERROR(tokenize::ReadWholeFile(path, &text));
    NEARDUP_RETURN_IF_ERROR(
        tokenize::ForEachLine(text, [&](std::string_view line, size_t no) -> Status {
          if (line.empty() || line[0] == '#') return Status::OK();
          const size_t tab = line.find('\t');
          auto where = [&] { return path + ":" + std::to_string(no) + ": "; };
          if (tab == std::string_view::npos || tab == 0) {
            return Status::InvalidArgument(where() + "expected key<TAB>value");
          }
          std::string_view value = tokenize::TrimAscii(line.substr(tab + 1));
          value = value.substr(0, value.find(' '));
          if (value.empty()) return Status::InvalidArgument(where() + "empty value");
          auto key = tokenize::DecodeToCodePoints(line.substr(0, tab));
          if (!key.ok()) return key.status().WithContext(where());
          if (index.count(*key)) return Status::OK();  // earlier tables win
          index.emplace(*key, static_cast<int32_t>(f->replacements_.size()));
          keys.push_back(std::move(*key));
          values.push_back(static_cast<int32_t>(f->replacements_.size()));
          f->replacements_.emplace_back(value);
          return Status::OK();
        }));
  }
  NEARDUP_ASSIGN_OR_RETURN(f->trie_, tokenize::CodeTrie::Build(std::move(keys), std::move(values)));
  return f;
}

Result<std::shared_ptr<const T2SFolder>> T2SFolder::Shared(const std::string& dir) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const T2SFolder>> instances;
  std::lock_guard<std::mutex> lock(mu);
  auto it = instances.find(dir);
  if (it != instances.end()) return it->second;
  NEARDUP_ASSIGN_OR_RETURN(std::unique_ptr<T2SFolder> f, Load(dir));
  std::shared_ptr<const T2SFolder> shared(std::move(f));
  instances.emplace(dir, shared);
  return shared;
}

void T2SFolder::Fold(std::string_view in, std::string* out) const {
  // The trie's labels are UTF-8 bytes, so the input is matched byte by byte;
  // keys are whole characters, so every match ends on a character boundary.
  out->reserve(out->size() + in.size());
  size_t pos = 0;
  while (pos < in.size()) {
    int32_t state = tokenize::CodeTrie::kRoot;
    size_t match_end = 0;
    int32_t match = -1;
    for (size_t i = pos; i < in.size(); ++i) {
      state = trie_.ChildByLabel(state, static_cast<unsigned char>(in[i]) + 1u);
      if (state == tokenize::CodeTrie::kNone) break;
      const int32_t v = trie_.Value(state);
      if (v >= 0) match = v, match_end = i + 1;
    }
    if (match >= 0) {
      out->append(replacements_[match]);
      pos = match_end;
      continue;
    }
    // Copy one character (its length from the lead byte; input is valid UTF-8).
    const unsigned char c = static_cast<unsigned char>(in[pos]);
    const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    out->append(in.substr(pos, len));
    pos += len;
  }
}

}  // namespace neardup::normalize
