"""Element types shared by the kernel language, tensors and operators."""


class DataType:
    """One element type: PyPTO's ``DT_*`` constants are instances."""

    __slots__ = ("name", "cxx", "itemsize", "numpy", "torch", "tsr", "dlpack")

    def __init__(self, name, cxx, itemsize, numpy, torch, tsr, dlpack):
        self.name = name
        self.cxx = cxx            # C++ element type in generated kernels
        self.itemsize = itemsize
        self.numpy = numpy        # numpy dtype name, None when numpy has none (bf16)
        self.torch = torch        # torch dtype attribute name
        self.tsr = tsr            # tsrDataType code, None when the C API has none
        self.dlpack = dlpack      # (type code, bits)

    def __repr__(self):
        return "DT_" + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name):
    return BY_NAME[name]


FP32 = DataType("FP32", "float", 4, "float32", "float32", 0, (2, 32))
FP16 = DataType("FP16", "::tessera::half", 2, "float16", "float16", 1, (2, 16))
BF16 = DataType("BF16", "::tessera::bfloat16", 2, None, "bfloat16", 27, (4, 16))
INT8 = DataType("INT8", "int8_t", 1, "int8", "int8", 2, (0, 8))
INT16 = DataType("INT16", "int16_t", 2, "int16", "int16", 6, (0, 16))
INT32 = DataType("INT32", "int32_t", 4, "int32", "int32", 3, (0, 32))
INT64 = DataType("INT64", "int64_t", 8, "int64", "int64", 9, (0, 64))
UINT8 = DataType("UINT8", "uint8_t", 1, "uint8", "uint8", 4, (1, 8))
BOOL = DataType("BOOL", "bool", 1, "bool", "bool", 12, (6, 8))

ALL = (FP32, FP16, BF16, INT8, INT16, INT32, INT64, UINT8, BOOL)
BY_NAME = {d.name: d for d in ALL}
BY_NUMPY = {d.numpy: d for d in ALL if d.numpy}
BY_TORCH = {d.torch: d for d in ALL}
BY_DLPACK = {d.dlpack: d for d in ALL}
BY_TSR = {d.tsr: d for d in ALL}
