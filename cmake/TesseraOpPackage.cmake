# tessera_add_op_package: builds an operator package directory
#
#   <OUTPUT_DIR>/manifest.json
#   <OUTPUT_DIR>/lib/lib<NAME>_ops.so                    op definitions + tiling functions
#   <OUTPUT_DIR>/kernels/<soc>/lib<NAME>_kernels.so      kernels, one library per SoC
#   <OUTPUT_DIR>/include/<NAME>_nn.h, lib/lib<NAME>_op_api.so   typed two-stage C API: for each op
#       <prefix><Op>GetWorkspaceSize(inputs..., attrs..., outputs..., &ws, &executor) and
#       <prefix><Op>(workspace, ws, executor, stream); prefix tsr_<NAME>_ (API_PREFIX overrides:
#       the built-in package uses tsr). Link target <NAME>_op_api; its calls are pinned to this
#       package (found next to the library, never shadowed by the search path).
#   <OUTPUT_DIR>/include/[ACLNN_HEADER_SUBDIR/]aclnn_<op>.h, lib/lib<NAME>_aclnn.so   CANN's op API
#       (aclnn<Op>GetWorkspaceSize / aclnn<Op>) over the typed API, when tessera::acl exists. Link
#       target <NAME>_aclnn.
#
#   tessera_add_op_package(NAME builtin
#     OP_SOURCES ...        # TESSERA_OP_ADD(...) classes and TESSERA_OP_LIBRARY()
#     KERNEL_SOURCES ...    # TESSERA_KERNEL_ENTRY(...) and TESSERA_KERNEL_LIBRARY()
#     [SOCS x86-64-v3 x86-64-v2]    # ISA levels; default: TESSERA_SOC_SERIES
#     [COMPUTE_UNITS znver3 ...]    # or exact CPU models; default: TESSERA_COMPUTE_UNIT
#     [LINKED_SOC target]           # linked form's target (default: lowest level / first unit)
#     [TILING_KEYS Add:0,1 Cast:3]  # selective build; default: TESSERA_TILING_KEYS (empty: all)
#     [API_PREFIX tsr]              # prefix of the typed C functions
#     [OUTPUT_DIR dir] [VERSION v] [INSTALL_DESTINATION dir])
#
# Each target's kernel library is compiled with -march=<target> (-mcpu for arm CPU models).
# Libraries use hidden visibility so each keeps its own registration lists. The manifest (with
# every binary's sha256) is written by tessera_package_tool after the libraries are built.
#
# Linked form (docs/runtime_packages.md), built only when linked: <NAME>_linked (shared library),
# <NAME>_linked_static (archive) and <NAME>_linked_whole (links the archive whole: use this one for
# a static link). Compiled once, for one target; it has the highest priority at run time.
include_guard(GLOBAL)

# The build machine's ISA level (what DetectSoc() would report), for the default SoC list.
function(tessera_detect_build_soc out)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
    set(${out} "armv8-a" PARENT_SCOPE)
    return()
  endif()
  set(src ${CMAKE_BINARY_DIR}/tessera_detect_soc.cc)
  file(WRITE ${src} "#include <cstdio>\nint main(){__builtin_cpu_init();\n"
    "bool v2=__builtin_cpu_supports(\"sse4.2\")&&__builtin_cpu_supports(\"popcnt\")&&__builtin_cpu_supports(\"ssse3\");\n"
    "bool v3=v2&&__builtin_cpu_supports(\"avx2\")&&__builtin_cpu_supports(\"bmi\")&&__builtin_cpu_supports(\"bmi2\")&&__builtin_cpu_supports(\"fma\")&&__builtin_cpu_supports(\"movbe\");\n"
    "bool v4=v3&&__builtin_cpu_supports(\"avx512f\")&&__builtin_cpu_supports(\"avx512bw\")&&__builtin_cpu_supports(\"avx512cd\")&&__builtin_cpu_supports(\"avx512dq\")&&__builtin_cpu_supports(\"avx512vl\");\n"
    "std::printf(\"%s\", v4?\"x86-64-v4\":v3?\"x86-64-v3\":v2?\"x86-64-v2\":\"x86-64\");}\n")
  try_run(run_result compile_result ${CMAKE_BINARY_DIR}/tessera_detect_soc ${src}
          RUN_OUTPUT_VARIABLE soc)
  if(NOT compile_result OR NOT run_result EQUAL 0)
    set(soc "x86-64-v2")
  endif()
  set(${out} "${soc}" PARENT_SCOPE)
endfunction()

set(TESSERA_SOC_SERIES "" CACHE STRING
    "ISA levels operator packages are built for (semicolon list; empty: this machine's level and x86-64-v2)")
set(TESSERA_COMPUTE_UNIT "" CACHE STRING
    "Exact CPU models operator packages are built for instead (-march names: znver3;icelake-server)")
if(TESSERA_SOC_SERIES AND TESSERA_COMPUTE_UNIT)
  message(FATAL_ERROR "TESSERA_SOC_SERIES (${TESSERA_SOC_SERIES}) and TESSERA_COMPUTE_UNIT "
    "(${TESSERA_COMPUTE_UNIT}) are both set; set only one. TESSERA_SOC_SERIES lists ISA levels "
    "(x86-64-v2, x86-64-v3, x86-64-v4, armv8-a): a binary runs on every CPU of that level or higher. "
    "TESSERA_COMPUTE_UNIT lists exact CPU models (znver3, icelake-server, ...): a binary runs only "
    "on that model.")
endif()
if(NOT TESSERA_SOC_SERIES AND NOT TESSERA_COMPUTE_UNIT)
  tessera_detect_build_soc(_tessera_build_soc)
  set(_tessera_default_socs ${_tessera_build_soc})
  # The x86-64-v2 fallback binary is a deployment target; sanitizer builds check memory behaviour,
  # which the build machine's binary shows as well, at half the kernel compile time.
  if(NOT TESSERA_SANITIZE AND NOT _tessera_build_soc STREQUAL "x86-64-v2"
     AND NOT _tessera_build_soc STREQUAL "armv8-a")
    list(APPEND _tessera_default_socs x86-64-v2)
  endif()
else()
  set(_tessera_default_socs ${TESSERA_SOC_SERIES})
endif()

set(TESSERA_TILING_KEYS "" CACHE STRING
    "Selective builds: the only tiling keys compiled, as '<Op>:<key>,<key>' items (a bare key list applies to every op not named), e.g. Add:0,1;Cast:3; empty builds every key")

set(_tessera_isa_levels x86-64 x86-64-v2 x86-64-v3 x86-64-v4 armv8-a)

# Checks a package's targets: SOCS must be ISA levels, COMPUTE_UNITS CPU models the compiler knows
# (the runtime checks the model against its own table when the manifest is written).
function(_tessera_check_targets pkg kind targets)
  foreach(t IN LISTS targets)
    if(kind STREQUAL "SOCS" AND NOT t IN_LIST _tessera_isa_levels)
      string(REPLACE ";" ", " levels "${_tessera_isa_levels}")
      message(FATAL_ERROR "tessera_add_op_package(${pkg}): SoC '${t}' is not an ISA level "
        "(${levels}); for an exact CPU model use COMPUTE_UNITS (or TESSERA_COMPUTE_UNIT)")
    endif()
    if(kind STREQUAL "COMPUTE_UNITS")
      if(t IN_LIST _tessera_isa_levels)
        message(FATAL_ERROR "tessera_add_op_package(${pkg}): compute unit '${t}' is an ISA level; "
          "list ISA levels in SOCS (or TESSERA_SOC_SERIES)")
      endif()
      _tessera_target_flag(${t} flag)
      string(MAKE_C_IDENTIFIER "TESSERA_COMPILER_KNOWS_${t}" var)
      include(CheckCXXCompilerFlag)
      check_cxx_compiler_flag(${flag} ${var})
      if(NOT ${var})
        message(FATAL_ERROR "tessera_add_op_package(${pkg}): compute unit '${t}' is not a CPU model "
          "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} knows (${flag} fails)")
      endif()
    endif()
  endforeach()
endfunction()

# The compiler flag selecting a target: -march for ISA levels and x86 models, -mcpu for arm models.
function(_tessera_target_flag target out)
  if(target IN_LIST _tessera_isa_levels OR CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    set(${out} -march=${target} PARENT_SCOPE)
  else()
    set(${out} -mcpu=${target} PARENT_SCOPE)
  endif()
endfunction()

# The target of a package's linked form: the lowest ISA level (its binary runs wherever the
# package runs), or the first compute unit (a model binary runs only on that model).
function(_tessera_linked_target targets out)
  foreach(level IN LISTS _tessera_isa_levels)
    if(level IN_LIST targets)
      set(${out} ${level} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  list(GET targets 0 first)
  set(${out} ${first} PARENT_SCOPE)
endfunction()

function(tessera_add_op_package)
  cmake_parse_arguments(PKG "" "NAME;VERSION;OUTPUT_DIR;INSTALL_DESTINATION;LINKED_SOC;API_PREFIX;ACLNN_HEADER_SUBDIR"
                        "OP_SOURCES;KERNEL_SOURCES;SOCS;COMPUTE_UNITS;TILING_KEYS" ${ARGN})
  if(NOT PKG_NAME)
    message(FATAL_ERROR "tessera_add_op_package: NAME is required")
  endif()
  if(NOT PKG_OP_SOURCES OR NOT PKG_KERNEL_SOURCES)
    message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): OP_SOURCES and KERNEL_SOURCES are required")
  endif()
  if(PKG_SOCS AND PKG_COMPUTE_UNITS)
    message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): SOCS (${PKG_SOCS}) and COMPUTE_UNITS "
      "(${PKG_COMPUTE_UNITS}) are both given; give one: SOCS lists ISA levels, COMPUTE_UNITS exact "
      "CPU models")
  endif()
  if(PKG_SOCS)
    _tessera_check_targets(${PKG_NAME} SOCS "${PKG_SOCS}")
  elseif(PKG_COMPUTE_UNITS)
    _tessera_check_targets(${PKG_NAME} COMPUTE_UNITS "${PKG_COMPUTE_UNITS}")
    set(PKG_SOCS ${PKG_COMPUTE_UNITS})
  elseif(TESSERA_COMPUTE_UNIT)
    _tessera_check_targets(${PKG_NAME} COMPUTE_UNITS "${TESSERA_COMPUTE_UNIT}")
    set(PKG_SOCS ${TESSERA_COMPUTE_UNIT})
  else()
    _tessera_check_targets(${PKG_NAME} SOCS "${_tessera_default_socs}")
    set(PKG_SOCS ${_tessera_default_socs})
  endif()
  if(PKG_LINKED_SOC AND NOT PKG_LINKED_SOC IN_LIST PKG_SOCS)
    message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): LINKED_SOC ${PKG_LINKED_SOC} is not "
      "one of the package's targets (${PKG_SOCS})")
  endif()
  string(MAKE_C_IDENTIFIER "tessera_pkg_${PKG_NAME}" pkg_namespace)
  if(NOT PKG_VERSION)
    set(PKG_VERSION ${PROJECT_VERSION})
  endif()
  if(NOT PKG_VERSION)
    set(PKG_VERSION 0.0.0)
  endif()
  if(NOT PKG_OUTPUT_DIR)
    set(PKG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/packages/${PKG_NAME})
  endif()

  set(ops_target ${PKG_NAME}_ops)
  add_library(${ops_target} SHARED ${PKG_OP_SOURCES})
  target_link_libraries(${ops_target} PRIVATE tessera::runtime tessera::tiling)
  # Ops built on elewise fused operators plan them in their tiling functions (op_kernel.h).
  if(TARGET tessera::elewise)
    target_link_libraries(${ops_target} PRIVATE tessera::elewise)
  endif()
  target_compile_definitions(${ops_target} PRIVATE TESSERA_PACKAGE_NAMESPACE=${pkg_namespace})
  # Vendor op_host sources include "register/op_def_registry.h" and the like (compat layer).
  if(TARGET tessera::vendor_headers)
    target_link_libraries(${ops_target} PRIVATE tessera::vendor_headers)
  endif()
  # Installed under <libdir>/tessera/packages/<name>/lib the library finds <libdir> four levels up;
  # the build tree's own paths come first.
  set_target_properties(${ops_target} PROPERTIES
    BUILD_RPATH "$ORIGIN/../../../.."
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${PKG_OUTPUT_DIR}/lib OUTPUT_NAME ${PKG_NAME}_ops)

  set(tool_args --dir ${PKG_OUTPUT_DIR} --name ${PKG_NAME} --version ${PKG_VERSION}
      --ops-lib lib/lib${PKG_NAME}_ops.so)
  set(kernel_targets)
  foreach(soc IN LISTS PKG_SOCS)
    if(soc MATCHES "^x86-64" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
      message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): SoC ${soc} needs an x86-64 build")
    endif()
    if(soc STREQUAL "armv8-a" AND NOT CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
      message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): SoC armv8-a needs an aarch64 build")
    endif()
    string(REPLACE "-" "_" soc_id ${soc})
    set(kt ${PKG_NAME}_kernels_${soc_id})
    add_library(${kt} SHARED ${PKG_KERNEL_SOURCES})
    target_link_libraries(${kt} PRIVATE tessera::kernel tessera::tiling tessera::runtime)
    if(TARGET tessera::elewise)
      target_link_libraries(${kt} PRIVATE tessera::elewise)
    endif()
    _tessera_target_flag(${soc} target_flag)
    target_compile_options(${kt} PRIVATE ${target_flag})
    # Sanitizer builds check the host side (runtime, device, the kernel API's own libraries and
    # its tests) instrumented; a package's kernels are left uninstrumented, since checked mode is
    # what checks kernel memory (GM guard pages, UB and L1/L0 bounds), and instrumenting the
    # template-heavy kernel sources costs several times their plain compile.
    if(TESSERA_SANITIZE)
      target_compile_options(${kt} PRIVATE -fno-sanitize=all)
    endif()
    target_compile_definitions(${kt} PRIVATE TESSERA_PACKAGE_NAMESPACE=${pkg_namespace})
    set_target_properties(${kt} PROPERTIES
      BUILD_RPATH "$ORIGIN/../../../../.."
      CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
      LIBRARY_OUTPUT_DIRECTORY ${PKG_OUTPUT_DIR}/kernels/${soc} OUTPUT_NAME ${PKG_NAME}_kernels)
    list(APPEND kernel_targets ${kt})
    list(APPEND tool_args --kernels ${soc}=kernels/${soc}/lib${PKG_NAME}_kernels.so)
  endforeach()

  # Selective builds (docs/runtime_packages.md): TILING_KEYS, else TESSERA_TILING_KEYS, compiles
  # only the selected entries (kernel_entry.h filters by kernel name) and the manifest records it.
  if(PKG_TILING_KEYS)
    set(tiling_keys ${PKG_TILING_KEYS})
    set(tiling_keys_option TILING_KEYS)
  else()
    set(tiling_keys ${TESSERA_TILING_KEYS})
    set(tiling_keys_option TESSERA_TILING_KEYS)
  endif()
  set(selected_kernel_keys "")
  foreach(item IN LISTS tiling_keys)
    if(NOT item MATCHES "^([A-Za-z_][A-Za-z0-9_]*:)?[0-9]+(,[0-9]+)*$")
      message(FATAL_ERROR "tessera_add_op_package(${PKG_NAME}): ${tiling_keys_option} item "
        "'${item}' is not '<Op>:<key>,<key>' or '<key>,<key>' (decimal keys; items separated by ';')")
    endif()
    set(kernel_item ${item})
    if(item MATCHES "^([^:]+):(.*)$")
      set(keys ${CMAKE_MATCH_2})
      # The op type's snake_case, as OpDef::KernelName: AddRmsNorm -> add_rms_norm.
      string(REGEX REPLACE "([A-Z])([A-Z][a-z])" "\\1_\\2" kernel "${CMAKE_MATCH_1}")
      string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" kernel "${kernel}")
      string(TOLOWER "${kernel}" kernel)
      set(kernel_item "${kernel}:${keys}")
    endif()
    string(APPEND selected_kernel_keys " ${kernel_item}")
    list(APPEND tool_args --tiling-keys ${item})
  endforeach()
  if(tiling_keys)
    string(STRIP "${selected_kernel_keys}" selected_kernel_keys)
    set(selected_definition "TESSERA_SELECTED_TILING_KEYS=\"${selected_kernel_keys}\"")
    foreach(kt IN LISTS kernel_targets)
      target_compile_definitions(${kt} PRIVATE ${selected_definition})
    endforeach()
    list(APPEND tool_args --tiling-keys-option ${tiling_keys_option})
  endif()

  # In tessera's own build the tool is a target; in an installed tessera it is imported.
  if(TARGET tessera_package_tool)
    set(tool tessera_package_tool)
  else()
    set(tool tessera::package_tool)
  endif()
  add_custom_command(OUTPUT ${PKG_OUTPUT_DIR}/manifest.json
    COMMAND ${tool} ${tool_args}
    DEPENDS ${ops_target} ${kernel_targets} ${tool}
    COMMENT "Writing the manifest of operator package ${PKG_NAME}")
  # The package's typed two-stage C API (the analogue of CANN's op_api): a generated header
  # <OUTPUT_DIR>/include/<name>_nn.h and library lib/lib<name>_op_api.so.
  set(api_header ${PKG_OUTPUT_DIR}/include/${PKG_NAME}_nn.h)
  set(api_source ${CMAKE_CURRENT_BINARY_DIR}/${PKG_NAME}_op_api.c)
  set(api_prefix_args "")
  if(PKG_API_PREFIX)
    set(api_prefix_args --api-prefix ${PKG_API_PREFIX})
  endif()
  # CANN's op API of the package (the compat layer's aclnn), generated by the same tool run.
  set(aclnn_outputs "")
  set(aclnn_args "")
  if(TARGET tessera::acl)
    set(aclnn_header_dir ${PKG_OUTPUT_DIR}/include)
    if(PKG_ACLNN_HEADER_SUBDIR)
      set(aclnn_header_dir ${aclnn_header_dir}/${PKG_ACLNN_HEADER_SUBDIR})
    endif()
    set(aclnn_source ${CMAKE_CURRENT_BINARY_DIR}/${PKG_NAME}_aclnn.c)
    set(aclnn_outputs ${aclnn_source})
    set(aclnn_args --aclnn-header-dir ${aclnn_header_dir} --aclnn-source ${aclnn_source})
  endif()
  add_custom_command(OUTPUT ${api_header} ${api_source} ${aclnn_outputs}
    COMMAND ${tool} --dir ${PKG_OUTPUT_DIR} --name ${PKG_NAME} --ops-lib lib/lib${PKG_NAME}_ops.so
            --api-header ${api_header} --api-source ${api_source} ${api_prefix_args} ${aclnn_args}
    DEPENDS ${ops_target} ${tool}
    COMMENT "Generating the typed C API of operator package ${PKG_NAME}")
  enable_language(C)
  add_library(${PKG_NAME}_op_api SHARED ${api_source} ${api_header})
  target_include_directories(${PKG_NAME}_op_api PUBLIC $<BUILD_INTERFACE:${PKG_OUTPUT_DIR}/include>)
  target_link_libraries(${PKG_NAME}_op_api PUBLIC tessera::runtime PRIVATE ${CMAKE_DL_LIBS} Threads::Threads m)
  set_target_properties(${PKG_NAME}_op_api PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${PKG_OUTPUT_DIR}/lib OUTPUT_NAME ${PKG_NAME}_op_api
    BUILD_RPATH "$ORIGIN/../../../.." LINKER_LANGUAGE CXX)

  set(aclnn_target "")
  if(TARGET tessera::acl)
    set(aclnn_target ${PKG_NAME}_aclnn)
    add_library(${aclnn_target} SHARED ${aclnn_source})
    # Both spellings CANN applications use: "aclnnop/aclnn_add.h" and "aclnn_add.h".
    target_include_directories(${aclnn_target} PUBLIC $<BUILD_INTERFACE:${PKG_OUTPUT_DIR}/include>
                               $<BUILD_INTERFACE:${aclnn_header_dir}>)
    target_link_libraries(${aclnn_target} PUBLIC ${PKG_NAME}_op_api tessera::acl)
    set_target_properties(${aclnn_target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${PKG_OUTPUT_DIR}/lib OUTPUT_NAME ${PKG_NAME}_aclnn
      BUILD_RPATH "$ORIGIN;$ORIGIN/../../../.." LINKER_LANGUAGE CXX)
  endif()
  add_custom_target(${PKG_NAME}_package ALL DEPENDS ${PKG_OUTPUT_DIR}/manifest.json ${PKG_NAME}_op_api
                    ${aclnn_target})
  set_property(TARGET ${PKG_NAME}_package PROPERTY TESSERA_PACKAGE_DIR ${PKG_OUTPUT_DIR})
  # The kernel library targets, one per SoC in PKG_SOCS order (the first is the default target:
  # the build machine's level unless SOCS/COMPUTE_UNITS say otherwise).
  set_property(TARGET ${PKG_NAME}_package PROPERTY TESSERA_PACKAGE_KERNEL_TARGETS ${kernel_targets})

  # The linked form (built only when something links it): op definitions, tiling functions and the
  # kernels of ONE target, compiled once into objects shared by a shared and a static library, plus
  # the manifest embedded as a generated source.
  if(PKG_LINKED_SOC)
    set(linked_soc ${PKG_LINKED_SOC})
  else()
    _tessera_linked_target("${PKG_SOCS}" linked_soc)
  endif()
  _tessera_target_flag(${linked_soc} linked_flag)
  set(linked_objects ${PKG_NAME}_linked_objects)
  add_library(${linked_objects} OBJECT EXCLUDE_FROM_ALL ${PKG_OP_SOURCES} ${PKG_KERNEL_SOURCES})
  target_link_libraries(${linked_objects} PRIVATE tessera::kernel tessera::tiling tessera::runtime)
  if(TARGET tessera::elewise)
    target_link_libraries(${linked_objects} PRIVATE tessera::elewise)
  endif()
  target_compile_options(${linked_objects} PRIVATE ${linked_flag})
  if(TARGET tessera::vendor_headers)
    target_link_libraries(${linked_objects} PRIVATE tessera::vendor_headers)
  endif()
  if(tiling_keys)  # the selective build's filter, as for the kernel libraries
    target_compile_definitions(${linked_objects} PRIVATE ${selected_definition})
  endif()
  target_compile_definitions(${linked_objects} PRIVATE TESSERA_LINKED_PACKAGE="${PKG_NAME}"
                             TESSERA_PACKAGE_NAMESPACE=${pkg_namespace})
  set_target_properties(${linked_objects} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  set(linked_manifest_source ${CMAKE_CURRENT_BINARY_DIR}/${PKG_NAME}_linked_manifest.cc)
  add_custom_command(OUTPUT ${linked_manifest_source}
    COMMAND ${tool} --embed-manifest --dir ${PKG_OUTPUT_DIR} --name ${PKG_NAME}
            --ops-lib lib/lib${PKG_NAME}_ops.so --linked-soc ${linked_soc}
            --output ${linked_manifest_source}
    DEPENDS ${PKG_OUTPUT_DIR}/manifest.json ${tool}
    COMMENT "Embedding the manifest of operator package ${PKG_NAME} in its linked form")
  set(linked_manifest ${PKG_NAME}_linked_manifest)
  add_library(${linked_manifest} OBJECT EXCLUDE_FROM_ALL ${linked_manifest_source})
  target_link_libraries(${linked_manifest} PRIVATE tessera::runtime)
  set_target_properties(${linked_manifest} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden)
  foreach(form SHARED STATIC)
    set(lt ${PKG_NAME}_linked)
    if(form STREQUAL "STATIC")
      set(lt ${PKG_NAME}_linked_static)
    endif()
    add_library(${lt} ${form} EXCLUDE_FROM_ALL
      $<TARGET_OBJECTS:${linked_objects}> $<TARGET_OBJECTS:${linked_manifest}>)
    target_link_libraries(${lt} PUBLIC tessera::runtime PRIVATE tessera::kernel tessera::tiling)
    if(TARGET tessera::elewise)
      target_link_libraries(${lt} PRIVATE tessera::elewise)
    endif()
    set_target_properties(${lt} PROPERTIES OUTPUT_NAME ${lt} LINKER_LANGUAGE CXX
      TESSERA_LINKED_SOC ${linked_soc})
  endforeach()
  # Nothing in the application references the package's symbols: keep the shared form a NEEDED
  # library under --as-needed (a default of some toolchains), or its registrars never run.
  target_link_options(${PKG_NAME}_linked INTERFACE "LINKER:--no-as-needed")
  # Static registrars in an archive are dropped by the linker unless something references them:
  # link <NAME>_linked_whole, which passes the archive whole.
  add_library(${PKG_NAME}_linked_whole INTERFACE)
  target_link_libraries(${PKG_NAME}_linked_whole INTERFACE
    "$<LINK_LIBRARY:WHOLE_ARCHIVE,${PKG_NAME}_linked_static>")

  if(PKG_INSTALL_DESTINATION)
    install(DIRECTORY ${PKG_OUTPUT_DIR}/ DESTINATION ${PKG_INSTALL_DESTINATION}
            USE_SOURCE_PERMISSIONS)
  endif()
endfunction()
