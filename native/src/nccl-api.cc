#include "nccl-api.h"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>
#include <mutex>
#include <sstream>

namespace streamscope {

namespace {

template <typename Fn>
bool resolve(NcclApi& api, Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(dlsym(api.handle, name));
  if (slot == nullptr) {
    api.error = api.path + " lacks " + name;
    return false;
  }
  return true;
}

std::string envOr(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// PyTorch wheels ship NCCL as the nvidia-nccl package: <env>/lib/python3.X/site-packages/...
void addBundled(std::vector<std::string>& out, const std::string& envRoot) {
  if (envRoot.empty()) return;
  std::string pattern = envRoot + "/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2";
  glob_t found{};
  if (glob(pattern.c_str(), 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; i++) out.emplace_back(found.gl_pathv[i]);
  } else {
    out.push_back(pattern);  // named in the error so a reader sees where we looked
  }
  globfree(&found);
}

std::vector<std::string> candidates() {
  std::vector<std::string> out;
  std::string explicitPath = envOr("STREAMSCOPE_NCCL_PATH");
  if (!explicitPath.empty()) out.push_back(explicitPath);
  out.emplace_back("libnccl.so.2");
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string root = envOr(var);
    if (!root.empty()) out.push_back(root + "/lib64/libnccl.so.2");
  }
  out.emplace_back("/usr/local/cuda/lib64/libnccl.so.2");
  addBundled(out, envOr("VIRTUAL_ENV"));
  addBundled(out, envOr("CONDA_PREFIX"));
  std::stringstream path(envOr("PATH"));
  std::string dir;
  while (std::getline(path, dir, ':')) {
    // .../bin/python belongs to the environment one level up.
    if (dir.size() > 4 && dir.compare(dir.size() - 4, 4, "/bin") == 0) addBundled(out, dir.substr(0, dir.size() - 4));
  }
  return out;
}

void load(NcclApi& api) {
  std::string lastWhy;
  for (const std::string& file : candidates()) {
    api.tried.push_back(file);
    api.handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.handle != nullptr) {
      api.path = file;
      break;
    }
    const char* why = dlerror();
    lastWhy = why != nullptr ? why : "not found";
  }
  if (api.handle == nullptr) {
    std::string list;
    for (const std::string& t : api.tried) list += (list.empty() ? "" : ", ") + t;
    api.error = "NCCL (libnccl.so.2) not found; tried " + list + " (last: " + lastWhy +
                "); install NCCL or set STREAMSCOPE_NCCL_PATH to its libnccl.so.2";
    return;
  }
  bool ok = resolve(api, api.getVersion, "ncclGetVersion") && resolve(api, api.getErrorString, "ncclGetErrorString") &&
            resolve(api, api.commInitAll, "ncclCommInitAll") && resolve(api, api.commDestroy, "ncclCommDestroy") &&
            resolve(api, api.groupStart, "ncclGroupStart") && resolve(api, api.groupEnd, "ncclGroupEnd") &&
            resolve(api, api.allReduce, "ncclAllReduce") && resolve(api, api.reduceScatter, "ncclReduceScatter") &&
            resolve(api, api.allGather, "ncclAllGather") && resolve(api, api.broadcast, "ncclBroadcast") &&
            resolve(api, api.send, "ncclSend") && resolve(api, api.recv, "ncclRecv");
  if (ok && api.getVersion(&api.version) != kNcclSuccess) {
    api.error = api.path + ": ncclGetVersion failed";
    ok = false;
  }
  if (!ok) {
    dlclose(api.handle);
    api.handle = nullptr;
  }
}

}  // namespace

std::string NcclApi::describe(NcclResult r, const char* call) const {
  const char* what = getErrorString != nullptr ? getErrorString(r) : nullptr;
  return std::string(call) + " failed: " + (what != nullptr ? what : "unknown NCCL error") + " (code " +
         std::to_string(r) + ")";
}

const NcclApi& ncclApi() {
  static std::once_flag once;
  static NcclApi* api = new NcclApi;  // never destroyed: NCCL stays loaded for the process
  std::call_once(once, [] { load(*api); });
  return *api;
}

}  // namespace streamscope
