// exe_graph/runtime/storage_shape.h: gert::StorageShape (declared with gert::Shape).
#pragma once

#include "exe_graph/runtime/shape.h"
