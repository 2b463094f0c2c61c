// SPDX-License-Identifier: Apache-2.0
#include "resources/data_dir.h"

#include <cstdlib>

#ifndef NEARDUP_DEFAULT_DATA_DIR
#define NEARDUP_DEFAULT_DATA_DIR "data"
#endif

namespace neardup::resources {

std::string DataDir() {
  const char* env = std::getenv("NEARDUP_DATA_DIR");
  if (env != nullptr && *env != '\0') return env;
  return NEARDUP_DEFAULT_DATA_DIR;
}

std::string JiebaDir(std::string_view data_dir) {
  return (data_dir.empty() ? DataDir() : std::string(data_dir)) +
         "/nodejieba/submodules/cppjieba/dict";
}

std::string OpenccDir(std::string_view data_dir) {
  return (data_dir.empty() ? DataDir() : std::string(data_dir)) + "/opencc/data/dictionary";
}

std::string JiebaFile(std::string_view name, std::string_view data_dir) {
  return JiebaDir(data_dir) + "/" + std::string(name);
}

std::string OpenccFile(std::string_view name, std::string_view data_dir) {
  return OpenccDir(data_dir) + "/" + std::string(name);
}

}  // namespace neardup::resources
