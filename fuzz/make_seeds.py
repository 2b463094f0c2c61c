#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the hand-made seed inputs of each fuzz target into fuzz/NAME/corpus/.

Run once when adding a target; the corpora are committed. Inputs the fuzzers
found later (crashes turned regression inputs, or `make fuzz-merge` results)
sit beside these seeds. File names are the sha1 of the content, as libFuzzer
names its own.
"""
import hashlib
import json
import os
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))

ZH = "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨百分之二点一。"
ZH_T = "國家統計局今天發佈數據顯示，程式設計與軟體開發。"
EN = "The quick brown fox jumps over the lazy dog. Hello, World!"
MIXED = "已知函数f(x)=2x+3，求f(1)的值？ ＡＢＣ①②③ ﬁ e\u0301 \u200b😀\r\n下一行"
BAD = [b"\xff\xfe", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe4\xb8", b"a\x80b",
       b"\xf0\x9f\x98", b"\xe0\x80\xaf"]


def write(name, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(ROOT, name, "corpus")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def texts():
    out = [t.encode() for t in (ZH, ZH_T, EN, MIXED, "", " ", "a")]
    out += BAD + [ZH.encode() + b for b in BAD[:3]]
    return out


def main():
    for t in texts():
        write("utf8", t)
    for flags in (0, 1, 3, 7, 15, 16, 31):
        for t in texts()[:5] + BAD[:2]:
            write("normalize", bytes([flags]) + t)
    for mode in (0, 1):
        for t in (ZH_T, MIXED, "台灣的軟體程式設計", EN):
            write("t2s", bytes([mode]) + t.encode())
    write("t2s", b"\x02" + "國\t国\n統計\t统计 統計\n# comment\n\n軟體\t软件\n".encode())
    for hmm in (0, 1):
        for t in texts()[:5] + ["我们在北京大学学习自然语言处理 nlp 2024 年", "C++ 和 .NET 的 3.5% 增长"]:
            write("segmenter", bytes([hmm]) + (t if isinstance(t, bytes) else t.encode()))
    for kind in range(7):
        a, b = ZH, ZH.replace("上涨", "下降")
        write("verify", a.encode() + b"\\" + b.encode() + bytes([kind, 0x80, 3, 2, 100, 0x40]))
    write("verify", ("x" * 70 + "\\" + "y" * 65 + "x" * 5).encode() + bytes([4, 0, 0, 0, 0, 0]))
    write("verify", ("已知函数f(x)=2x+3" + "\\" + "已知函数f(x)=2x+5").encode() + bytes([6, 0x80]))
    tables = {
        0: "中国 8.5\n北京 9.1\nthe 0.5\n\ufeff空格 词 3\n",
        1: "\ufeff的\n了\n  是  \n\nthe\r\n",
        2: "國\t国\n統計\t统计 統計\n# comment\n",
        3: "北京 100 ns\n北京大学 50 nt\n自然语言 10\n",
        4: "云计算\n韩玉鉴赏 3 nr\n蓝翔 nz\nreact 5\n",
    }
    for which, text in tables.items():
        write("tables", bytes([which]) + text.encode())
    write("tables", b"\x00bad line without number\n")
    write("dictionary", b"\x00" + tables[3].encode() + "学习 90 v\n处理 60 v\n".encode())
    write("dictionary", b"\x01" + tables[4].encode())
    write("dictionary", b"\x02" + "#prob_start\n-0.26 -3.14e+100 -3.14e+100 -1.46\n"
          "#prob_trans\n-3.14e+100 -0.51 -0.91 -3.14e+100\n-0.59 -3.14e+100 -3.14e+100 -0.81\n"
          "-3.14e+100 -0.33 -1.26 -3.14e+100\n-0.72 -3.14e+100 -3.14e+100 -0.67\n"
          "#prob_emit\n自:-5.1,然:-6.2\n语:-7.0\n言:-6.9\n处:-5.5,理:-6.1\n".encode())
    write("idf", b"\x00" + tables[0].encode())
    write("idf", b"\x01" + tables[1].encode())
    body = struct.pack("<QQ", 10, 2) + struct.pack("<QQ", 7, 3) + struct.pack("<QQ", 9, 10)
    write("idf", b"\x03" + body)
    write("idf", b"\x02NDDFTBL1" + b"\0" * 8 + body)
    with open(os.path.join(ROOT, "..", "testdata", "reprints.jsonl"), "rb") as f:
        reprints = f.read()
    for flags in (0, 1, 2, 4, 7, 0x38):
        write("jsonl", bytes([flags]) + reprints[:2000])
    write("jsonl", b"\x01" + b'{"id":"a","text":"x"}\n\n{"id":[1],"text":"y"}\n{"text":5}\nnot json\n'
          b'{"id":18446744073709551615,"text":"\xff"}\n{"t":"z"}\n')
    # The library reader's cases: BOM, CRLF, 7 and "7", -0, a big id, a float id, no final '\n'.
    edge = (b'\xef\xbb\xbf{"id":7,"text":"a"}\r\n{"id":"7","text":"b"}\r\n \t\r\n'
            b'{"id":-0,"text":"c"}\n{"id":99999999999999999999,"text":"d"}\n'
            b'{"id":1.5,"text":"e"}\n{"text":"f","text":"g"}')
    for flags in (0, 1, 3):
        write("jsonl", bytes([flags]) + edge)
    docs = [{"id": "a", "text": ZH, "meta": {"source": "x"}, "time": 1000},
            {"id": "b", "text": EN}, {"id": 5, "text": "x"}, {"id": "c", "text": "t", "time": -1},
            {"id": "d", "text": "t", "meta": [1]}, {"id": "e" * 40, "text": "t"}]
    for d in docs:
        write("json_io", b"\x00" + json.dumps(d, ensure_ascii=False).encode())
    write("json_io", b"\x01" + json.dumps(docs, ensure_ascii=False).encode())
    write("json_io", b"\x01" + b"\n".join(json.dumps(d).encode() for d in docs) + b"\n{broken\n")
    for s in (b"\x02abc", b"\x02a\x01b", b"\x03123", b"\x031001", b"\x03-1", b"\x00" + b"[" * 40):
        write("json_io", s)
    # http_routes: FuzzedDataProvider takes integers from the end and strings
    # from the front; the seeds give route bodies and let the fuzzer mutate.
    bodies = [json.dumps(docs[0], ensure_ascii=False), json.dumps(docs[:3], ensure_ascii=False),
              json.dumps({"text": ZH, "max_distance": 3}, ensure_ascii=False),
              json.dumps({"a": ZH, "b": ZH_T}, ensure_ascii=False), json.dumps({"before": 2000}),
              ""]
    for i, b in enumerate(bodies):
        for route in range(13):
            write("http_routes", b"a\\" + b.encode() + bytes([0, route]))
    for route in range(13):
        write("http_routes", b"doc-1\\20\\" + bytes([2, 0, route]))


if __name__ == "__main__":
    main()
