// inscy_gpu_stub.cpp — the subspace clustering's GPU back end in a build
// without CUDA (CMake leaves this file out when cuda/inscy.cu is built).
#include "inscy.hpp"

namespace gd {
namespace inscy {

std::unique_ptr<Backend> make_gpu_backend(const Prepared&, const gd_params&, const CancelToken&) {
  throw Error(GD_ERR_NO_DEVICE, "gpu_dbscan was built without CUDA");
}

}  // namespace inscy
}  // namespace gd
