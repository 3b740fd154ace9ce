/*
 * mapped_file.c — map a small shared file of the data directory.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_perm.h"

#include "mapped_file.h"

void *
gd_map_file(const char *path, size_t size, bool fresh)
{
	int			fd;
	struct stat st;
	void	   *p = MAP_FAILED;
	int			save_errno;

	fd = open(path, O_RDWR | O_CREAT | PG_BINARY | (fresh ? O_TRUNC : 0), pg_file_create_mode);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 &&
		(st.st_size >= (off_t) size || ftruncate(fd, size) == 0))
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	save_errno = errno;
	close(fd);
	if (p == MAP_FAILED)
	{
		if (fresh)
			unlink(path);
		errno = save_errno;
		return NULL;
	}
	return p;
}
