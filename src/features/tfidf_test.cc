// SPDX-License-Identifier: Apache-2.0
#include "features/tfidf.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "base/file_util.h"

namespace neardup::features {
namespace {

class TfIdfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nd_tfidf_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    EXPECT_TRUE(base::AtomicWrite(p, text).ok());
    return p;
  }
  static std::vector<Feature> Words(std::initializer_list<const char*> ws) {
    std::vector<Feature> f;
    for (auto w : ws) f.push_back({HashFeature(w), 1.0f});
    return f;
  }
  static std::map<uint64_t, float> AsMap(const std::vector<Feature>& f) {
    std::map<uint64_t, float> m;
    for (auto x : f) m[x.hash] += x.weight;
    return m;
  }
  std::filesystem::path dir_;
};

TEST_F(TfIdfTest, IdfTableMedianAndMeanLikeJieba) {
  const std::string p = Write("idf.utf8", "新闻 2.0\n经济 5.0\n稀有词 13.5\n发展 3.0\n发展 4.0\n");
  auto med = IdfTable::Load(p);
  ASSERT_TRUE(med.ok()) << med.status().ToString();
  EXPECT_EQ((*med)->size(), 4u);
  EXPECT_FLOAT_EQ((*med)->Idf(HashFeature("发展")), 4.0f);  // the last line wins
  // jieba: sorted(values)[len // 2] = sorted{2, 4, 5, 13.5}[2] = 5
  EXPECT_DOUBLE_EQ((*med)->Idf(HashFeature("未知")), 5.0);
  auto mean = IdfTable::Load(p, UnknownIdf::kMean);
  ASSERT_TRUE(mean.ok());
  EXPECT_DOUBLE_EQ((*mean)->default_idf(), (2.0 + 5.0 + 13.5 + 4.0) / 4);
  EXPECT_TRUE(IdfTable::Load(Write("bad", "词\n")).status().IsInvalidArgument());
}

TEST_F(TfIdfTest, WeighterDropsStopWordsMergesAndKeepsTopN) {
  auto idf = IdfTable::Load(Write("idf", "经济 5.0\n发展 3.0\n新闻 2.0\n稀有 10\n"));
  ASSERT_TRUE(idf.ok());
  auto stop = StopWords::Load(Write("stop", "的\n  了 \n\n"));
  ASSERT_TRUE(stop.ok());
  EXPECT_EQ((*stop)->size(), 2u);
  TfIdfWeighter all(*idf, *stop);
  auto f = Words({"经济", "的", "发展", "经济", "了", "新闻", "未知"});
  all.Apply(&f);
  auto m = AsMap(f);
  EXPECT_EQ(m.size(), 4u);
  EXPECT_FLOAT_EQ(m[HashFeature("经济")], 10.0f);  // tf 2 * idf 5
  EXPECT_FLOAT_EQ(m[HashFeature("发展")], 3.0f);
  EXPECT_FLOAT_EQ(m[HashFeature("未知")], static_cast<float>((*idf)->default_idf()));
  EXPECT_EQ(m.count(HashFeature("的")), 0u);

  TfIdfWeighter top2(*idf, nullptr, {.top_n = 2});
  auto g = Words({"经济", "稀有", "发展", "经济", "新闻"});
  top2.Apply(&g);
  auto m2 = AsMap(g);
  ASSERT_EQ(m2.size(), 2u);
  EXPECT_FLOAT_EQ(m2[HashFeature("经济")], 10.0f);
  EXPECT_FLOAT_EQ(m2[HashFeature("稀有")], 10.0f);
}

TEST_F(TfIdfTest, TopNMatchesBruteForceRanking) {
  std::mt19937 rng(5);
  std::vector<std::string> vocab;
  std::string idf_text;
  for (int i = 0; i < 50; ++i) {
    vocab.push_back("w" + std::to_string(i));
    idf_text += vocab.back() + " " + std::to_string(1 + rng() % 20) + "\n";
  }
  auto idf = IdfTable::Load(Write("idf", idf_text));
  ASSERT_TRUE(idf.ok());
  for (int round = 0; round < 50; ++round) {
    std::vector<Feature> f;
    for (int i = 0; i < 40; ++i) f.push_back({HashFeature(vocab[rng() % 50]), 1.0f});
    std::map<uint64_t, float> tf = AsMap(f);
    std::vector<std::pair<float, uint64_t>> ranked;
    for (auto [h, c] : tf) ranked.push_back({-static_cast<float>(c * (*idf)->Idf(h)), h});
    std::sort(ranked.begin(), ranked.end());
    const int n = 1 + rng() % 10;
    TfIdfWeighter w(*idf, nullptr, {.top_n = n});
    w.Apply(&f);
    std::map<uint64_t, float> want;
    for (int i = 0; i < n && i < static_cast<int>(ranked.size()); ++i)
      want[ranked[i].second] = -ranked[i].first;
    EXPECT_EQ(AsMap(f), want);
  }
}

TEST_F(TfIdfTest, DocumentFrequenciesLearnSaveLoad) {
  DocumentFrequencyTable df;
  df.AddDocument(Words({"a", "b", "a"}));  // a counted once
  df.AddDocument(Words({"a", "c"}));
  EXPECT_EQ(df.num_documents(), 2u);
  EXPECT_EQ(df.DocumentFrequency(HashFeature("a")), 2u);
  EXPECT_EQ(df.DocumentFrequency(HashFeature("b")), 1u);
  EXPECT_DOUBLE_EQ(df.Idf(HashFeature("a")), std::log(3.0 / 3.0) + 1.0);
  EXPECT_DOUBLE_EQ(df.Idf(HashFeature("zzz")), std::log(3.0) + 1.0);
  EXPECT_GT(df.Idf(HashFeature("b")), df.Idf(HashFeature("a")));

  const std::string p = (dir_ / "df.bin").string();
  ASSERT_TRUE(df.Save(p).ok());
  DocumentFrequencyTable back;
  ASSERT_TRUE(back.Load(p).ok());
  EXPECT_EQ(back.num_documents(), 2u);
  EXPECT_EQ(back.num_terms(), 3u);
  EXPECT_EQ(back.DocumentFrequency(HashFeature("c")), 1u);

  std::string image;
  df.Serialize(&image);
  image[image.size() - 3] ^= 1;
  EXPECT_EQ(back.Deserialize(image).code(), StatusCode::kCorruption);
  EXPECT_EQ(back.Deserialize("short").code(), StatusCode::kCorruption);
  EXPECT_EQ(back.num_documents(), 2u);  // unchanged after a failed load
}

// Tables learned over the parts of a corpus, merged, are the table of the
// whole corpus (MPI ranks learn their shares, then merge).
TEST_F(TfIdfTest, MergedPartsAreTheWholeTable) {
  const std::vector<std::vector<Feature>> docs = {Words({"a", "b", "a"}), Words({"a", "c"}),
                                                  Words({"d"}), Words({"b", "c", "e"}),
                                                  Words({"a"})};
  DocumentFrequencyTable whole, first, second;
  for (size_t i = 0; i < docs.size(); ++i) {
    whole.AddDocument(docs[i]);
    (i < 2 ? first : second).AddDocument(docs[i]);
  }
  std::string image;
  second.Serialize(&image);
  ASSERT_TRUE(first.Merge(image).ok());
  std::string a, b;
  first.Serialize(&a);
  whole.Serialize(&b);
  EXPECT_EQ(a, b);  // the same rows, sorted: byte-identical
  EXPECT_EQ(first.num_documents(), 5u);
  EXPECT_EQ(first.DocumentFrequency(HashFeature("a")), 3u);
  image[image.size() - 1] ^= 1;
  EXPECT_EQ(first.Merge(image).code(), StatusCode::kCorruption);
  EXPECT_EQ(first.num_documents(), 5u);  // unchanged after a failed merge
}

TEST_F(TfIdfTest, StreamingTableIsThreadSafe) {
  auto df = std::make_shared<DocumentFrequencyTable>();
  TfIdfWeighter w(df, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        auto f = Words({"x", t % 2 ? "y" : "z"});
        df->AddDocument(f);
        w.Apply(&f);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(df->num_documents(), 2000u);
  EXPECT_EQ(df->DocumentFrequency(HashFeature("x")), 2000u);
  EXPECT_EQ(df->DocumentFrequency(HashFeature("y")), 1000u);
}

}  // namespace
}  // namespace neardup::features
