# CAF 0.17.6 as Debian ships it: headers and libcaf_core / libcaf_io / libcaf_openssl, but no CMake
# config and no pkg-config file. Wraps them as imported targets CAF::core, CAF::io (which links
# CAF::core) and CAF::openssl (the cluster's TLS; links CAF::io and OpenSSL::SSL).
# Included from messages/CMakeLists.txt (the first user); GLOBAL so every directory sees them.
if(TARGET CAF::core)
  return()
endif()
find_package(Threads REQUIRED)
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY caf_core)
find_library(CAF_IO_LIBRARY caf_io)
find_library(CAF_OPENSSL_LIBRARY caf_openssl)
find_package(OpenSSL REQUIRED COMPONENTS SSL Crypto)
if(NOT CAF_INCLUDE_DIR OR NOT CAF_CORE_LIBRARY OR NOT CAF_IO_LIBRARY OR NOT CAF_OPENSSL_LIBRARY)
  message(FATAL_ERROR "CAF 0.17 not found (Debian: apt-get install libcaf-dev)")
endif()
add_library(CAF::core UNKNOWN IMPORTED GLOBAL)
set_target_properties(CAF::core PROPERTIES
  IMPORTED_LOCATION ${CAF_CORE_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${CAF_INCLUDE_DIR}
  INTERFACE_LINK_LIBRARIES Threads::Threads)
add_library(CAF::io UNKNOWN IMPORTED GLOBAL)
set_target_properties(CAF::io PROPERTIES
  IMPORTED_LOCATION ${CAF_IO_LIBRARY}
  INTERFACE_LINK_LIBRARIES CAF::core)
add_library(CAF::openssl UNKNOWN IMPORTED GLOBAL)
set_target_properties(CAF::openssl PROPERTIES
  IMPORTED_LOCATION ${CAF_OPENSSL_LIBRARY}
  INTERFACE_LINK_LIBRARIES "CAF::io;OpenSSL::SSL")
message(STATUS "cuzk: CAF ${CAF_CORE_LIBRARY}")
