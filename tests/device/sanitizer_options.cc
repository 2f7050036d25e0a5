// Under AddressSanitizer, let tessera's checked-mode fault handler see guard-page faults first (it
// names the allocation and the kernel block, then hands the fault on).
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() {
  return "allow_user_segv_handler=1";
}
#endif
