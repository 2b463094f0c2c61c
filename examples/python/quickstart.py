# SPDX-License-Identifier: Apache-2.0
import neardup

engine = neardup.Engine()  # the default profile; Engine("zh-news", threshold=0.7, ...)
engine.add("a", "床前明月光，疑是地上霜。举头望明月，低头思故乡。")
r = engine.add("b", "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。")  # Traditional script
print(r.duplicate, r.cluster, r.cluster_size)  # True a 2
print(engine.similar("a"))  # [Match(id='b', signal='cluster', ..., verified=1.0)]
print(engine.query("床前明月光，疑是地上霜。举头望明月，低头思家乡。").cluster)  # a

# Batch: the same clusters as `neardup dedup` on these records
texts = ["a b c d e f g h", "a b c d e f g h!", "something else entirely"]
labels = neardup.dedup(texts)
print(labels.cluster, labels.is_kept)  # [0, 0, 2] [True, False, True]
print(neardup.dedup(texts, emit="unique"))  # the kept records

sig = neardup.minhash("床前明月光")  # 128 ints, the engine's MinHash
print(neardup.explain("床前明月光，疑是地上霜", "床前明月光，疑是地上雪").rule)
