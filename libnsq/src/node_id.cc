// Kept apart from id_generator.cc: it is the only code needing OpenSSL and
// zlib, which the fuzz-only build does not link.
#include <openssl/evp.h>
#include <zlib.h>

#include "nsq/id_generator.h"

namespace nsq {

int64_t default_node_id(std::string_view hostname) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  // EVP rather than MD5(): the latter is deprecated in OpenSSL 3.
  if (EVP_Digest(hostname.data(), hostname.size(), digest, &digest_size, EVP_md5(), nullptr) != 1) {
    return 0;
  }
  const uLong crc = crc32(crc32(0L, Z_NULL, 0), digest, digest_size);
  return static_cast<int64_t>(crc % 1024);
}

}  // namespace nsq
