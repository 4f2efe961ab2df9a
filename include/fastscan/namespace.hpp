//! \file namespace.hpp
//! The library's namespace, the one definition every header includes (host-only headers too: no
//! CUDA here). Frameworks that embed several copies of fastscan in one process define
//! FASTSCAN_NAMESPACE to a name of their own (-DFASTSCAN_NAMESPACE=name) so the copies cannot collide.
#pragma once

#ifndef FASTSCAN_NAMESPACE
#define FASTSCAN_NAMESPACE fastscan
#endif

#define FASTSCAN_NAMESPACE_BEGIN namespace FASTSCAN_NAMESPACE {
#define FASTSCAN_NAMESPACE_END }
