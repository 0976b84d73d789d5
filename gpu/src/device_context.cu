#include "device_context.cuh"

#include <string>

namespace cuzk::gpu {

device_context::device_context(int dev, std::size_t staging_bytes, std::size_t margin)
    : device(dev), safety_margin(margin) {
  CUZK_CUDA(cudaSetDevice(device));
  CUZK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUZK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CUZK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CUZK_CUDA(cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming));
  CUZK_CUDA(cudaEventCreateWithFlags(&lane_ready, cudaEventDisableTiming));
  CUZK_CUDA(cudaEventCreate(&side_t0));
  CUZK_CUDA(cudaEventCreate(&side_t1));
  int least = 0, greatest = 0;
  CUZK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CUZK_CUDA(cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, greatest));
  CUZK_CUDA(cudaEventCreateWithFlags(&urgent_ready, cudaEventDisableTiming));
  CUZK_CUDA(cudaEventCreateWithFlags(&urgent_done, cudaEventDisableTiming));
  slots = slots_of_device(device);
  staging = std::make_shared<staging_context>(device, staging_bytes, slots);
  CUZK_CUDA(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
  CUZK_CUDA(cudaEventCreate(&t0));
  CUZK_CUDA(cudaEventCreate(&t1));
  result = dbuf<unsigned char>(result_slot_bytes * 16);
  counters = dbuf<unsigned long long>(2);
}

device_context::~device_context() {
  cudaSetDevice(device);
  cudaDeviceSynchronize();
  for (auto e : {uploaded, t0, t1, lane_ready, side_done, side_t0, side_t1, urgent_ready, urgent_done})
    if (e) cudaEventDestroy(e);
  if (compute) cudaStreamDestroy(compute);
  if (side) cudaStreamDestroy(side);
  if (urgent) cudaStreamDestroy(urgent);
}

void device_context::upload_async(void* dst, const void* src, std::size_t bytes) {
  staging->upload(dst, src, bytes);
  CUZK_CUDA(cudaEventRecord(uploaded, staging->stream));
  CUZK_CUDA(cudaStreamWaitEvent(compute, uploaded, 0));
}

std::size_t device_context::raw_free() const {
  std::size_t fr = 0, total = 0;
  CUZK_CUDA(cudaMemGetInfo(&fr, &total));
  return fr > safety_margin ? fr - safety_margin : 0;
}

void device_context::make_room(std::size_t bytes) const {
  const std::size_t fr = raw_free();
  if (bytes > fr) slots->trim(bytes - fr);
}

dbuf<unsigned char> device_context::alloc(std::size_t bytes, const char* what) {
  if (bytes > free_bytes()) release_scratch();  // scratch is remade at the next MSM, if it fits then
  if (bytes > free_bytes())
    throw std::runtime_error(std::string(what) + ": " + std::to_string(bytes >> 20) + " MiB do not fit in device " +
                             std::to_string(device) + "'s free memory (" + std::to_string(free_bytes() >> 20) +
                             " MiB)");
  make_room(bytes);
  return dbuf<unsigned char>(bytes);
}

void device_context::ensure_result_slots(std::size_t slots) {
  if (result.size() < slots * result_slot_bytes) {
    CUZK_CUDA(cudaStreamSynchronize(compute));
    result.reset();
    result = dbuf<unsigned char>(slots * result_slot_bytes);
  }
  if (result_host.size() < slots * result_slot_bytes) result_host.resize(slots * result_slot_bytes);
}

unsigned char* device_context::work_buffer(std::size_t bytes, const char* what) {
  if (work.bytes() < bytes) {
    CUZK_CUDA(cudaStreamSynchronize(compute));  // an earlier proof's lanes may still read it
    CUZK_CUDA(cudaStreamSynchronize(side));
    work.reset();
    work = alloc(bytes, what);
  }
  return work.get();
}

void device_context::release_scratch() {
  CUZK_CUDA(cudaStreamSynchronize(compute));
  CUZK_CUDA(cudaStreamSynchronize(side));
  scratch.release();
  side_scratch.release();
  work.reset();
}

}  // namespace cuzk::gpu
