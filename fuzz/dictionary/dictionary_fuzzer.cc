// SPDX-License-Identifier: Apache-2.0
// Fuzzes the segmenter's loaders (tokenize/dictionary.h, hmm_model.h). The
// first byte picks: a main jieba dictionary, a user dictionary on top of a
// small fixed main one, or an HMM model file. A dictionary that loads is
// used: a segmenter built on it cuts a sample text into tokens covering it;
// a model that loads tags a sample run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "tokenize/dictionary.h"
#include "tokenize/hmm_model.h"
#include "tokenize/segmenter.h"

namespace {

namespace tokenize = neardup::tokenize;
constexpr char kSample[] = "我们在北京大学学习自然语言处理 nlp 2024 年，效果很好。";
// A small valid model, so that building a segmenter per input stays cheap.
constexpr char kModel[] =
    "#prob_start\n-0.26 -3.14e+100 -3.14e+100 -1.46\n#prob_trans\n-3.14e+100 -0.51 -0.91 "
    "-3.14e+100\n-0.59 -3.14e+100 -3.14e+100 -0.81\n-3.14e+100 -0.33 -1.26 -3.14e+100\n-0.72 "
    "-3.14e+100 -3.14e+100 -0.67\n#prob_emit\n自:-5.1,然:-6.2\n语:-7.0\n言:-6.9\n处:-5.5,理:-6.1\n";

const std::string& ModelPath() {
  static neardup::fuzz::MemFile model(kModel);
  FUZZ_CHECK(tokenize::HmmModel::Load(model.path()).ok());
  return model.path();
}

void CutSample(const std::string& dict_path, const std::vector<std::string>& user) {
  tokenize::SegmenterOptions o;
  o.dict_path = dict_path;
  o.user_dict_paths = user;
  o.hmm_path = ModelPath();
  o.use_cache = false;
  auto seg = tokenize::Segmenter::Create(o);
  if (!seg.ok()) return;
  std::vector<std::string_view> tokens;
  FUZZ_CHECK((*seg)->Cut(kSample, &tokens).ok());
  size_t covered = 0;
  for (auto t : tokens) covered += t.size();
  FUZZ_CHECK(covered == sizeof(kSample) - 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 3;
  neardup::fuzz::MemFile file(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  if (which == 0) {
    auto d = tokenize::Dictionary::Load({.dict_path = file.path(), .use_cache = false});
    if (d.ok()) CutSample(file.path(), {});
  } else if (which == 1) {
    static neardup::fuzz::MemFile main(
        "北京 100 ns\n北京大学 50 nt\n大学 80 n\n学习 90 v\n自然 30 "
        "a\n语言 40 n\n处理 60 v\n效果 20 n\n");
    CutSample(main.path(), {file.path()});
  } else {
    auto m = tokenize::HmmModel::Load(file.path());
    if (m.ok()) {
      const std::u32string run = U"自然语言处理效果很好";
      std::vector<uint8_t> states;
      std::vector<uint32_t> ends;
      (*m)->Cut(run.data(), run.size(), &states, &ends);
      FUZZ_CHECK(!ends.empty() && ends.back() == run.size());
      for (size_t i = 1; i < ends.size(); ++i) FUZZ_CHECK(ends[i - 1] < ends[i]);
    }
  }
  return 0;
}
