# One translation unit per public header, so every header compiles on its own; the same set again
# under the flags PyTorch builds its CUDA code with.
file(GLOB_RECURSE _fastscan_headers RELATIVE ${PROJECT_SOURCE_DIR}/include
     ${PROJECT_SOURCE_DIR}/include/fastscan/*.cuh ${PROJECT_SOURCE_DIR}/include/fastscan/*.hpp)
list(FILTER _fastscan_headers EXCLUDE REGEX "nccl\\.cuh$")  # needs NCCL: compiled by examples/context_parallel
set(_sources "")
foreach(_header IN LISTS _fastscan_headers)
  string(MAKE_C_IDENTIFIER ${_header} _name)
  set(_file ${PROJECT_BINARY_DIR}/header_checks/${_name}.cu)
  file(CONFIGURE OUTPUT ${_file} CONTENT "#include <${_header}>\n#include <${_header}>\n")
  list(APPEND _sources ${_file})
endforeach()
add_library(fastscan_header_checks OBJECT ${_sources})
target_link_libraries(fastscan_header_checks PRIVATE fastscan::fastscan)
fastscan_set_warnings(fastscan_header_checks)

add_library(fastscan_header_checks_torch_flags OBJECT ${_sources} ${PROJECT_SOURCE_DIR}/tests/torch_flags.cu)
target_link_libraries(fastscan_header_checks_torch_flags PRIVATE fastscan::fastscan)
target_compile_definitions(fastscan_header_checks_torch_flags PRIVATE __CUDA_NO_HALF_OPERATORS__
                           __CUDA_NO_HALF_CONVERSIONS__ __CUDA_NO_BFLOAT16_CONVERSIONS__ __CUDA_NO_HALF2_OPERATORS__
                           FASTSCAN_NAMESPACE=vendored_fastscan)
fastscan_set_warnings(fastscan_header_checks_torch_flags)
