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

# The same headers under C++20 and PyTorch's flags, as torch 2.15's extensions compile them: the
# library is C++17 and compiles cleanly under both standards.
if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)  # CMake before 3.26 knows no C++20 flag for nvcc
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
add_library(fastscan_header_checks_cxx20 OBJECT ${_sources})
set_target_properties(fastscan_header_checks_cxx20 PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON)
target_link_libraries(fastscan_header_checks_cxx20 PRIVATE fastscan::fastscan)
target_compile_definitions(fastscan_header_checks_cxx20 PRIVATE __CUDA_NO_HALF_OPERATORS__ __CUDA_NO_HALF_CONVERSIONS__
                           __CUDA_NO_BFLOAT16_CONVERSIONS__ __CUDA_NO_HALF2_OPERATORS__)
fastscan_set_warnings(fastscan_header_checks_cxx20)
