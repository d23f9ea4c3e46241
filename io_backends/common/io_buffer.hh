// A page-aligned I/O buffer, allocated once per worker on the control path.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>

namespace xttcp {

class IoBuffer {
 public:
  IoBuffer() = default;
  IoBuffer(std::size_t size, unsigned char fill) : size_(size) {
    const std::size_t rounded = (size + page - 1) / page * page;
    data_.reset(
        static_cast<unsigned char*>(std::aligned_alloc(page, rounded == 0 ? page : rounded)));
    if (data_) std::memset(data_.get(), fill, rounded);
  }
  unsigned char* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  explicit operator bool() const { return data_ != nullptr; }
  // Gives the memory up without freeing it: the kernel may still read or write it.
  void leak() { static_cast<void>(data_.release()); }

 private:
  static constexpr std::size_t page = 4096;
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace xttcp
