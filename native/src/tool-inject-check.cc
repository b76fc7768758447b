// streamscope-inject-check: loads the injection library the way the CUDA driver does (dlopen,
// then its entry points by name) and, given a script, runs the collector's self-test as a stand-in
// program: `inject-check LIB` only checks that it loads; `inject-check LIB SCRIPT` runs SCRIPT.
// The self-test catches a SIGINT (the dashboard's Stop) and reports it, as a program would.
#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

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
  auto run = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "StreamscopeInjectSelfTest"));
  return run(script.str().c_str());
}
