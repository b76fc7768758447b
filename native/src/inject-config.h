// What the injection collector reads from its environment (the `profile` CLI sets it; a person
// may set it by hand). Read once, in InitializeInjection, before any thread of ours exists.
#pragma once

#include <cstdint>
#include <string>

namespace streamscope {

struct InjectConfig {
  /** STREAMSCOPE_PROFILE_SOCKET: the server's (or the CLI's) Unix socket. */
  std::string socketPath;
  /** STREAMSCOPE_PROFILE_URL: http://HOST:PORT of a server beyond this machine's sockets. */
  std::string url;
  /** STREAMSCOPE_PROFILE_TOKEN: the server's access token (with a URL). */
  std::string token;
  /** STREAMSCOPE_PROFILE_RUN: the run this process joins (the CLI registered it). */
  std::string runId;
  /** STREAMSCOPE_PROFILE_OUT: the .sstrace file written when no server is named. */
  std::string outPath;
  /** STREAMSCOPE_PROFILE_TITLE: the run's title when this process starts one. */
  std::string title;
  /** STREAMSCOPE_PROFILE_NVTX=0 leaves NVTX ranges out. */
  bool nvtx = true;
  /** STREAMSCOPE_PROFILE_ALL_API=1 records query calls too (cudaGetDevice...). */
  bool everyApiCall = false;
  /** STREAMSCOPE_PROFILE_FLUSH_MS: how often records leave the process. */
  int flushIntervalMs = 20;
  /** STREAMSCOPE_PROFILE_BUFFER_KB: bytes of one CUPTI activity buffer (small: records leave sooner). */
  size_t bufferBytes = 32u << 10;
  /**
   * STREAMSCOPE_PROFILE_EVENTS=1 adds CUDA event records with device timestamps (the GPU instant
   * of each cudaEventRecord, and record→wait flows). Off by default, as nsys's
   * --cuda-event-trace is: on an H100 (CUPTI 2025.3.1, driver 580) they hung per_call's event
   * case for good after 460k launches, copies and memsets (fixtures/runs/profile-h100.txt, run D),
   * the program blocked inside CUDA/CUPTI with or without our flush thread. Stream waits and
   * event syncs are still drawn from the synchronization records.
   */
  bool cudaEvents = false;
  /** STREAMSCOPE_PROFILE_DRIVER_API=0 leaves driver calls out (runtime calls stay). */
  bool driverApi = true;
  /** STREAMSCOPE_PROFILE_SYNC_QUERIES=0 leaves out event/stream queries that found work pending. */
  bool pendingQueries = true;
  /** STREAMSCOPE_PROFILE_INLINE=1: records are decoded on the thread CUPTI completes a buffer on. */
  bool handOverInline = false;
  /**
   * STREAMSCOPE_PROFILE_API_CALLBACK=1: API calls from our own CUPTI callback into per-thread rings
   * (inject-api-calls.h), skipping the driver calls a runtime call makes, instead of CUPTI's API
   * activity records. Off by default: per_call measured it within noise of the activity records.
   */
  bool apiCallback = false;
  /** STREAMSCOPE_PROFILE_PINNED=1: CUPTI's device-side record buffers in pinned host memory. */
  bool pinnedDeviceBuffers = false;
  /** STREAMSCOPE_PROFILE_MAX_RECORDS: records held before more are dropped (and counted). */
  size_t maxQueuedRecords = 1u << 20;
  /** STREAMSCOPE_PROFILE_CUPTI_MB: bytes of activity buffers CUPTI and our flush thread hold at once. */
  size_t cuptiInFlightBytes = 64u << 20;
  /** STREAMSCOPE_PROFILE_MAX_BUFFER_MB: encoded frames held for a server that is away. */
  size_t maxBufferedBytes = 64u << 20;
  /** STREAMSCOPE_PROFILE_RECONNECT_MS: how long a dropped connection is retried. */
  int reconnectMs = 15000;
  /**
   * STREAMSCOPE_PROFILE_OFF: record kinds left off, for measuring what each costs (names in
   * kProfileOffNames; "all" leaves CUPTI subscribed with nothing enabled). Empty in normal runs.
   */
  uint32_t offKinds = 0;
  /** STREAMSCOPE_PROFILE_ORIGIN_NS: CLOCK_REALTIME ns of the run's time 0 (the CLI's spawn). */
  int64_t originRealtimeNs = 0;
  /**
   * The process's rank in a distributed job, as its launcher says it (launcherRank), or -1: its
   * tracks say it, so a live job's processes are its ranks.
   */
  int64_t rank = -1;
};

/**
 * The rank a launcher gave this process: torchrun's RANK, Open MPI's OMPI_COMM_WORLD_RANK,
 * PMI_RANK / PMIX_RANK (MPICH, Slurm's PMI), Slurm's SLURM_PROCID, the first set; -1 when none
 * is, or it is not a whole number in [0, 2^24). Never an error: a program may set RANK to
 * anything.
 */
int64_t launcherRank();

/** Fills `config` from the environment; returns "" or the first bad variable and why. */
std::string readInjectConfig(InjectConfig& config);

}  // namespace streamscope
