#pragma once
// The element types a spec's arguments may have, with host-side conversion to and from double (inputs
// are made and outputs judged on the host).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace evotune::user_kernel {

enum class DType { float16, bfloat16, float32, float64, int8, uint8, int32, uint32, int64 };

std::optional<DType> parse_dtype(std::string_view text);
std::string_view dtype_name(DType type);
// "float16 bfloat16 ..." for messages.
std::string dtype_names();
std::size_t dtype_bytes(DType type);
bool is_float(DType type);
// The representable range of an integer type (for scalars); floats: +-max.
double dtype_lowest(DType type);
double dtype_highest(DType type);

// One element at `element` (dtype_bytes(type) bytes), rounded to nearest even for fp16/bf16.
void store_element(DType type, double value, void* element);
double load_element(DType type, const void* element);

}  // namespace evotune::user_kernel
