// The vendor's basic_api/kernel_operator_list_tensor_intf.h, which samples include by its bare
// name: ListTensorDesc / TensorDesc (tessera/compat/kernel/list_tensor.h) with the rest of
// kernel_operator.h, as the vendor's header brings the tensor types along.
#pragma once

#include "kernel_operator.h"
