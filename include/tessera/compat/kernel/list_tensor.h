// The vendor's ListTensorDesc / TensorDesc: a kernel's dynamic list of GM tensors, passed as one
// GM buffer in the vendor's layout (uint64 words): word 0 is the byte offset of the data-pointer
// array; then one descriptor per tensor, `dim | index << 32` followed by dim shape words; then the
// data pointers. Device memory is host memory on tessera, so the words are read in place.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/kernel/check.h"
#include "tessera/kernel/global_tensor.h"

namespace AscendC {

class ListTensorDesc;

// One tensor of a list: its rank, index, shape and data (filled by ListTensorDesc::GetDesc into
// the shape array given with SetShapeAddr).
template <class T>
class TensorDesc {
 public:
  void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
  uint64_t GetDim() { return dim_; }
  uint64_t GetIndex() { return index_; }
  uint64_t GetShape(uint32_t offset) {
    if (offset >= dim_ || shape_ == nullptr) {
      ::tessera::kernel::KernelFail("TensorDesc::GetShape",
                                    "offset " + std::to_string(offset) + " is outside the rank " +
                                        std::to_string(dim_) + " (or SetShapeAddr was not called)");
    }
    return shape_[offset];
  }
  T* GetDataPtr() { return ptr_; }
  ::tessera::kernel::GlobalTensor<T> GetDataObj() {
    uint64_t size = 1;
    for (uint32_t i = 0; i < dim_ && shape_ != nullptr; ++i)
      size *= shape_[i];
    ::tessera::kernel::GlobalTensor<T> obj;
    obj.SetGlobalBuffer(ptr_, size);
    return obj;
  }

 private:
  friend class ListTensorDesc;
  uint32_t dim_ = 0;
  uint32_t index_ = 0;
  uint64_t* shape_ = nullptr;
  T* ptr_ = nullptr;
};

class ListTensorDesc {
 public:
  ListTensorDesc() = default;
  explicit ListTensorDesc(void* data, uint32_t length = 0xffffffff,
                          uint32_t shapeSize = 0xffffffff) {
    Init(data, length, shapeSize);
  }
  // Decodes the list header; length (bytes) and shapeSize (tensors), when given, are checked
  // against it.
  void Init(void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    constexpr const char* kApi = "ListTensorDesc";
    if (data == nullptr) ::tessera::kernel::KernelFail(kApi, "the list pointer is null");
    const auto* words = static_cast<const uint64_t*>(data);
    const uint64_t ptr_offset = words[0];
    if (ptr_offset < 16 || ptr_offset % 8 != 0) {
      ::tessera::kernel::KernelFail(kApi, "data-pointer offset " + std::to_string(ptr_offset) +
                                              " is not a multiple of 8 past the header");
    }
    shapes_ = words + 1;
    data_ptrs_ = words + ptr_offset / 8;
    dim_ = static_cast<uint32_t>(shapes_[0] & 0xffffffffu);
    const uint32_t first_index = static_cast<uint32_t>(shapes_[0] >> 32);
    desc_words_ = dim_ == 0 ? 2 : 1 + dim_;
    // The count: the first descriptor's index field when set, else the last descriptor's + 1.
    count_ = first_index != 0 ? first_index
                              : static_cast<uint32_t>(*(data_ptrs_ - desc_words_) >> 32) + 1;
    if (dim_ != 0 && count_ != (ptr_offset - 8) / (8 * desc_words_)) {
      ::tessera::kernel::KernelFail(kApi, "the header describes " + std::to_string(count_) +
                                              " tensors of rank " + std::to_string(dim_) +
                                              " but the pointers start at byte " +
                                              std::to_string(ptr_offset));
    }
    if (length != 0xffffffff && shapeSize != 0xffffffff &&
        (count_ != shapeSize || length != ptr_offset + uint64_t{count_} * 8)) {
      ::tessera::kernel::KernelFail(
          kApi, "length " + std::to_string(length) + " / shapeSize " + std::to_string(shapeSize) +
                    " do not match the list of " + std::to_string(count_) + " tensors");
    }
  }
  template <class T>
  void GetDesc(TensorDesc<T>& desc, uint32_t index) {
    CheckIndex(index, "ListTensorDesc::GetDesc");
    if (dim_ == 0 || desc.shape_ == nullptr) {
      ::tessera::kernel::KernelFail("ListTensorDesc::GetDesc",
                                    "the list has no shapes or SetShapeAddr was not called");
    }
    // The vendor's layout gives every tensor of a list the same rank (descriptors are found by
    // stride); a descriptor of another rank means the list was built wrongly.
    const uint64_t* header = shapes_ + uint64_t{index} * desc_words_;
    if (static_cast<uint32_t>(*header & 0xffffffffu) != dim_) {
      ::tessera::kernel::KernelFail(
          "ListTensorDesc::GetDesc",
          "tensor " + std::to_string(index) + " has rank " + std::to_string(*header & 0xffffffffu) +
              " but the list's tensors have rank " + std::to_string(dim_) +
              " (every tensor of a list has the same rank)");
    }
    desc.dim_ = dim_;
    desc.index_ = index;
    desc.ptr_ = GetDataPtr<T>(index);
    const uint64_t* shape = header + 1;
    for (uint32_t i = 0; i < dim_; ++i)
      desc.shape_[i] = shape[i];
  }
  template <class T>
  T* GetDataPtr(uint32_t index) {
    CheckIndex(index, "ListTensorDesc::GetDataPtr");
    return reinterpret_cast<T*>(static_cast<uintptr_t>(data_ptrs_[index]));
  }
  uint32_t GetSize() { return count_; }

 private:
  void CheckIndex(uint32_t index, const char* api) const {
    if (index >= count_) {
      ::tessera::kernel::KernelFail(api, "index " + std::to_string(index) +
                                             " is outside the list's " + std::to_string(count_) +
                                             " tensors");
    }
  }
  const uint64_t* shapes_ = nullptr;
  const uint64_t* data_ptrs_ = nullptr;
  uint32_t dim_ = 0;
  uint32_t desc_words_ = 0;
  uint32_t count_ = 0;
};

}  // namespace AscendC
