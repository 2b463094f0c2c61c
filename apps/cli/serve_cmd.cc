// SPDX-License-Identifier: Apache-2.0
// `neardup serve`: the durable HTTP service (apps/server, docs/api.md).
// Blocks SIGTERM/SIGINT in every thread and waits for them in main, then
// shuts down gracefully: stop accepting, finish requests in flight, drain
// the write queue, flush the store.
#ifdef NEARDUP_HAVE_SERVER

#include <arpa/inet.h>
#include <fmt/core.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <tuple>

#include "base/machine.h"
#include "cli/command.h"
#include "neardup/durable_engine.h"
#include "server/server.h"

namespace neardup::cli {
namespace {

struct ServeFlags {
  std::string data;
  std::string listen = "127.0.0.1:8080";
  std::string profile = "default";
  std::string ttl = "48h";
  std::string token_file;
  std::string port_file;
  std::vector<std::string> cors_origins;
  std::vector<std::string> allowed_hosts;
  bool insecure = false;
  bool store_text = false;
  bool no_fsync = false;
  size_t max_body = 32u << 20;
  size_t max_doc = 1u << 20;
  size_t max_batch = 1000;
  int threads = 64;
  int compute_threads = 0;
  int boilerplate_documents = -1;  // -1: the profile's
  double containment = -1;         // -1: the profile's
  std::string signals;             // empty: the profile's
  size_t max_connections = 1024;
  std::string header_timeout = "10s";
  std::string request_timeout = "60s";
  std::string idle_timeout = "30s";
  std::string write_timeout = "10s";
  size_t max_header = 16 << 10;
  int max_distance = -1;
  double threshold = -1;
};

// "48h", "30m", "90s", "2d", "1500ms" or "0" (never) -> milliseconds, at
// most 100 years (a longer one is an error, not an overflow).
Result<int64_t> ParseDuration(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 12) return Status::InvalidArgument("bad duration '" + s + "'");
  const int64_t n = std::stoll(s.substr(0, i));
  const std::string unit = s.substr(i);
  int64_t ms_per_unit = 0;
  if (unit == "ms") ms_per_unit = 1;
  if (unit == "s") ms_per_unit = 1000;
  if (unit == "m") ms_per_unit = 60 * 1000;
  if (unit == "h" || (unit.empty() && n == 0)) ms_per_unit = 3600 * 1000;
  if (unit == "d") ms_per_unit = 24 * 3600 * 1000;
  if (ms_per_unit == 0) {
    return Status::InvalidArgument("bad duration '" + s + "' (use ms, s, m, h or d)");
  }
  constexpr int64_t kMaxMs = int64_t{36500} * 24 * 3600 * 1000;
  if (n > kMaxMs / ms_per_unit) {
    return Status::InvalidArgument("duration '" + s + "' is too long (at most 36500d)");
  }
  return n * ms_per_unit;
}

Result<std::pair<std::string, int>> ParseListen(const std::string& s) {
  const size_t colon = s.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument("--listen wants HOST:PORT");
  std::string host = s.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string port = s.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return Status::InvalidArgument("bad port in --listen '" + s + "'");
  }
  return std::make_pair(host, std::stoi(port));
}

Result<std::string> ReadToken(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status::IOError("cannot read token file " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string t = ss.str();
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  if (t.empty()) return Status::InvalidArgument("token file " + path + " is empty");
  return t;
}

// Each connection is a descriptor, and RocksDB keeps its files open: raise
// the soft limit as far as the hard one allows, and warn when that is still
// too low. Returns the limit in force (0 when unknown).
uint64_t RaiseFileLimit(size_t connections) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return 0;
  if (r.rlim_cur < r.rlim_max) {
    rlimit raised = r;
    raised.rlim_cur = r.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) r = raised;
  }
  // Admitted connections, as many again answering 503 at the limit, and
  // RocksDB's files.
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < 2 * connections + 256) {
    fmt::print(stderr,
               "neardup serve: warning: the file descriptor limit {} is low for "
               "--max-connections {} (each connection is one, and as many again may be "
               "answered 503 past the limit; RocksDB needs some too)\n",
               static_cast<unsigned long long>(r.rlim_cur), connections);
  }
  return r.rlim_cur == RLIM_INFINITY ? 0 : static_cast<uint64_t>(r.rlim_cur);
}

// True for `localhost` and loopback addresses (127.0.0.0/8, ::1).
bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  unsigned char a[16];
  if (inet_pton(AF_INET, host.c_str(), a) == 1) return a[0] == 127;
  static const unsigned char kLoopback6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return inet_pton(AF_INET6, host.c_str(), a) == 1 && std::equal(a, a + 16, kLoopback6);
}

int Serve(const ServeFlags& f) {
  auto fail = [](const Status& s, int code) {
    fmt::print(stderr, "neardup serve: {}\n", s.ToString());
    return code;
  };
  auto ttl = ParseDuration(f.ttl);
  if (!ttl.ok()) return fail(ttl.status(), kExitUsage);
  auto listen = ParseListen(f.listen);
  if (!listen.ok()) return fail(listen.status(), kExitUsage);
  auto engine_opts = EngineOptions::FromProfile(f.profile);
  if (!engine_opts.ok()) return fail(engine_opts.status(), kExitUsage);
  if (f.threshold >= 0) engine_opts->threshold = f.threshold;
  if (f.max_distance >= 0) engine_opts->simhash.max_distance = f.max_distance;
  if (f.boilerplate_documents >= 0) {
    engine_opts->verify.boilerplate_documents = f.boilerplate_documents;
  }
  if (f.containment >= 0) engine_opts->verify.containment = f.containment;
  if (!f.signals.empty()) {
    auto signals = ParseSignals(f.signals);
    if (!signals.ok()) return fail(signals.status(), kExitUsage);
    engine_opts->signals = *signals;
  }
  engine_opts->info_log = [](LogLevel level, std::string_view message) {
    fmt::print(stderr, "neardup serve: {}{}\n",
               level == LogLevel::kError     ? "error: "
               : level == LogLevel::kWarning ? "warning: "
                                             : "",
               message);
  };
  server::ServerOptions so;
  so.host = listen->first;
  so.port = listen->second;
  so.connection.threads = f.threads;
  so.connection.compute_threads = f.compute_threads;
  so.connection.max_connections = f.max_connections;
  so.connection.max_header_bytes = f.max_header;
  for (auto [flag, value, out] :
       {std::tuple{"--header-timeout", &f.header_timeout, &so.connection.header_timeout_ms},
        std::tuple{"--request-timeout", &f.request_timeout, &so.connection.request_timeout_ms},
        std::tuple{"--idle-timeout", &f.idle_timeout, &so.connection.idle_timeout_ms},
        std::tuple{"--write-timeout", &f.write_timeout, &so.connection.write_timeout_ms}}) {
    auto ms = ParseDuration(*value);
    if (!ms.ok() || *ms <= 0 || *ms > (int64_t{1} << 30)) {
      return fail(Status::InvalidArgument(std::string(flag) + " wants a positive duration"),
                  kExitUsage);
    }
    *out = static_cast<int>(*ms);
  }
  if (f.threads < 1 || f.max_connections < 1) {
    return fail(Status::InvalidArgument("--threads and --max-connections must be positive"),
                kExitUsage);
  }
  if (Status s = base::CheckThreads(f.threads, "--threads"); !s.ok()) return fail(s, kExitUsage);
  if (f.compute_threads < 0) {
    return fail(Status::InvalidArgument("--compute-threads must be 0 (one a core) or positive"),
                kExitUsage);
  }
  if (Status s = base::CheckThreads(f.compute_threads, "--compute-threads"); !s.ok()) {
    return fail(s, kExitUsage);
  }
  if (f.token_file.empty() && !IsLoopbackHost(so.host) && !f.insecure) {
    return fail(Status::InvalidArgument(
                    "--listen " + f.listen +
                    " is reachable from other machines, and without --token-file anyone there "
                    "could read and change the store: give --token-file, or --insecure to "
                    "serve without a token anyway"),
                kExitUsage);
  }
  const uint64_t fd_limit = RaiseFileLimit(f.max_connections);
  so.cors_origins = f.cors_origins;
  so.allowed_hosts = f.allowed_hosts;
  so.limits.max_body_bytes = f.max_body;
  // Bodies in memory across connections: a few of the largest at once.
  so.connection.max_buffered_bytes = std::max<size_t>(256u << 20, 4 * f.max_body);
  so.limits.max_doc_bytes = f.max_doc;
  so.limits.max_batch = f.max_batch;
  if (!f.token_file.empty()) {
    auto t = ReadToken(f.token_file);
    if (!t.ok()) return fail(t.status(), kExitUsage);
    so.token = *t;
  }
  DurableOptions d;
  d.dir = f.data;
  d.engine = *engine_opts;
  d.engine.max_document_bytes = f.max_doc;
  // Requests already spread over the compute pool's threads, one a core: a
  // batch is prepared on the thread that serves it (DurableEngine::AddBatch).
  d.engine.threads = 1;
  d.ttl_ms = *ttl;
  d.store_text = f.store_text;
  d.sync = !f.no_fsync;

  // Signals go to main's sigwait only; threads created below inherit the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto engine = DurableEngine::Open(d);
  if (!engine.ok()) {
    fail(engine.status(), kExitBadInput);
    if (engine.status().code() == StatusCode::kCorruption) {
      fmt::print(stderr,
                 "neardup serve: the store was left as it is. `neardup store check {0}` reports "
                 "what is damaged; `neardup store repair {0}` says what a repair recovers and "
                 "loses, and with --yes repairs it.\n",
                 f.data);
    }
    return kExitBadInput;
  }
  const DurableStats st = (*engine)->Stats();
  server::HttpService service(engine->get(), so);
  if (Status s = service.Bind(); !s.ok()) return fail(s, kExitBadInput);
  fmt::print(stderr,
             "neardup serve: {} documents restored in {} ms; listening on http://{}:{} "
             "(file descriptor limit {})\n",
             st.restored_documents, st.restore_ms,
             so.host.find(':') != std::string::npos ? "[" + so.host + "]" : so.host, service.port(),
             fd_limit);
  if (so.token.empty() && !IsLoopbackHost(so.host)) {
    fmt::print(stderr,
               "neardup serve: warning: --insecure: serving {} without a token; anyone who "
               "can reach it can read and change the store\n",
               f.listen);
  }
  if (!f.port_file.empty()) {
    std::ofstream pf(f.port_file + ".tmp");
    pf << service.port() << "\n";
    pf.close();
    std::rename((f.port_file + ".tmp").c_str(), f.port_file.c_str());
  }
  std::thread server_thread([&] {
    if (Status s = service.Serve(); !s.ok()) {
      fmt::print(stderr, "neardup serve: {}\n", s.ToString());
    }
    kill(getpid(), SIGTERM);  // wake main if the listener ended by itself
  });
  int sig = 0;
  sigwait(&set, &sig);
  fmt::print(stderr, "neardup serve: signal {}, shutting down\n", sig);
  service.Stop();
  server_thread.join();
  if (Status s = (*engine)->Close(); !s.ok()) return fail(s, kExitBadInput);
  fmt::print(stderr, "neardup serve: stopped cleanly\n");
  return kExitOk;
}

void SetupServe(CLI::App* app, int* exit_code) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* cmd =
      app->add_subcommand("serve", "Run the durable HTTP service (JSON API v1, see docs/api.md).");
  cmd->add_option("--data", flags->data, "Store directory (created if missing)")->required();
  cmd->add_option("--listen", flags->listen, "HOST:PORT to bind; port 0 picks a free one")
      ->capture_default_str();
  cmd->add_option("--profile", flags->profile, "Engine profile")->capture_default_str();
  cmd->add_option("--ttl", flags->ttl, "Expire trees idle this long (e.g. 48h, 30m; 0 = never)")
      ->capture_default_str();
  cmd->add_option("--token-file", flags->token_file,
                  "File holding a bearer token required on every request but /healthz");
  cmd->add_option("--cors-origin", flags->cors_origins,
                  "An origin (https://host[:port]) whose pages may call the API, beyond the "
                  "console's own; repeatable");
  cmd->add_option("--allowed-host", flags->allowed_hosts,
                  "A Host name clients may use beyond the listen address (a proxy's or DNS "
                  "name; * for any); repeatable");
  cmd->add_flag("--insecure", flags->insecure,
                "Allow --listen on a non-loopback address without --token-file");
  cmd->add_flag("--store-text", flags->store_text, "Keep document text in the store");
  cmd->add_option("--max-body", flags->max_body, "Largest request body in bytes")
      ->capture_default_str();
  cmd->add_option("--max-doc-bytes", flags->max_doc, "Largest document text in bytes")
      ->capture_default_str();
  cmd->add_option("--max-batch", flags->max_batch, "Most documents per batch request")
      ->capture_default_str();
  cmd->add_option("--threads", flags->threads,
                  "Threads for requests that wait on a write's commit (adds, batches, "
                  "deletes, expiry): that many are processed at once; idle connections hold none")
      ->capture_default_str();
  cmd->add_option("--compute-threads", flags->compute_threads,
                  "Threads for the other requests (queries, reads), which only use the CPU; "
                  "0: one a core")
      ->capture_default_str();
  cmd->add_option("--max-connections", flags->max_connections,
                  "Open connections beyond which new ones get 503")
      ->capture_default_str();
  cmd->add_option("--header-timeout", flags->header_timeout,
                  "Time from a request's first byte to the end of its headers (408 after)")
      ->capture_default_str();
  cmd->add_option("--request-timeout", flags->request_timeout,
                  "Time from a request's first byte to the end of its body (408 after)")
      ->capture_default_str();
  cmd->add_option("--idle-timeout", flags->idle_timeout,
                  "Close a keep-alive connection idle this long")
      ->capture_default_str();
  cmd->add_option("--write-timeout", flags->write_timeout,
                  "Give up on a client that does not read its response for this long")
      ->capture_default_str();
  cmd->add_option("--max-header-bytes", flags->max_header,
                  "Largest request line plus headers (431 above)")
      ->capture_default_str();
  cmd->add_option("-t,--threshold", flags->threshold,
                  "Override the profile's similarity threshold (0..1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("-k,--max-distance", flags->max_distance,
                  "Override the SimHash k (profiles with the simhash signal)");
  cmd->add_option("--boilerplate-documents", flags->boilerplate_documents,
                  "Override the profile's boilerplate guard: text repeated by this many documents "
                  "that started clusters is left out of long texts' similarity; 0: off")
      ->check(CLI::Range(0, 255));
  cmd->add_option("--signals", flags->signals,
                  "Override the profile's candidate signals, a comma-separated list (a store "
                  "written before containment joined the default: exact,minhash)");
  cmd->add_option("--containment", flags->containment,
                  "Override the profile's containment rule: a long pair under the threshold "
                  "still matches when the smaller text lies this much inside the larger; 0: off")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--port-file", flags->port_file, "Write the bound port here once listening");
  cmd->add_flag("--no-fsync", flags->no_fsync,
                "UNSAFE: acknowledge writes before they reach the disk (benchmarks only)");
  cmd->callback([flags, exit_code] { *exit_code = Serve(*flags); });
}

}  // namespace

NEARDUP_REGISTER_COMMAND(90, SetupServe);

}  // namespace neardup::cli

#endif  // NEARDUP_HAVE_SERVER
