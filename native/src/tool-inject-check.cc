// streamscope-inject-check: loads the injection library the way the CUDA driver does (dlopen,
// then its entry points by name) and, given a script, runs the collector's self-test as a stand-in
// program: `inject-check LIB` only checks that it loads; `inject-check LIB SCRIPT` runs SCRIPT.
// A SIGINT (the dashboard's Stop) is caught and reported, as a program would see it.
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {
volatile sig_atomic_t interrupted = 0;
void onSigint(int) { interrupted = 1; }
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: inject-check LIB [SCRIPT]\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 3;
  }
  const char* names[] = {"InitializeInjection", "InitializeInjectionNvtx2", "StreamscopeInjectSelfTest"};
  for (const char* name : names) {
    if (dlsym(lib, name) == nullptr) {
      std::fprintf(stderr, "%s lacks %s\n", argv[1], name);
      return 3;
    }
  }
  if (argc < 3) {
    std::printf("loaded %s: InitializeInjection, InitializeInjectionNvtx2\n", argv[1]);
    return 0;
  }
  std::ifstream in(argv[2]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[2]);
    return 2;
  }
  std::stringstream script;
  script << in.rdbuf();
  struct sigaction sa {};
  sa.sa_handler = onSigint;
  sigaction(SIGINT, &sa, nullptr);
  auto run = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "StreamscopeInjectSelfTest"));
  int status = run(script.str().c_str());
  if (interrupted != 0) std::printf("SIGINT received\n");
  std::fflush(stdout);
  return status;
}
