// SPDX-License-Identifier: Apache-2.0
//
// Where neardup's data packages live (fetched by scripts/setup, docs/data.md)
// and the paths of the files each module reads. Every loader takes a path;
// this header is the one place that knows the layout of the data directory.
//
// Thread safety: pure functions (they read the environment).
#ifndef NEARDUP_RESOURCES_DATA_DIR_H_
#define NEARDUP_RESOURCES_DATA_DIR_H_

#include <string>
#include <string_view>

namespace neardup::resources {

// $NEARDUP_DATA_DIR if set and non-empty, else the compile-time default (the
// source tree's data/, filled by scripts/setup).
std::string DataDir();

// The jieba dictionary folder (npm nodejieba, submodules/cppjieba/dict) and
// the OpenCC plain-text tables (npm opencc, data/dictionary) under
// `data_dir`, or under DataDir() when `data_dir` is empty.
std::string JiebaDir(std::string_view data_dir = {});
std::string OpenccDir(std::string_view data_dir = {});

// Files of the jieba folder.
inline constexpr std::string_view kJiebaDict = "jieba.dict.utf8";
inline constexpr std::string_view kJiebaHmm = "hmm_model.utf8";
inline constexpr std::string_view kJiebaIdf = "idf.utf8";
inline constexpr std::string_view kJiebaStopWords = "stop_words.utf8";

// Path of a jieba file: JiebaDir(data_dir) + "/" + name.
std::string JiebaFile(std::string_view name, std::string_view data_dir = {});
// Path of an OpenCC table such as "TSCharacters.txt".
std::string OpenccFile(std::string_view name, std::string_view data_dir = {});

}  // namespace neardup::resources

#endif  // NEARDUP_RESOURCES_DATA_DIR_H_
