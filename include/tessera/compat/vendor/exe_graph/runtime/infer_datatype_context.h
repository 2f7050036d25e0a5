// exe_graph/runtime/infer_datatype_context.h: gert::InferDataTypeContext (declared with
// gert::InferShapeContext).
#pragma once

#include "exe_graph/runtime/infer_shape_context.h"
