// What the lock calls the causal runtime interposes return, in the cases where trying the
// lock first could differ from taking it: an error-checking mutex taken twice (EDEADLK),
// a recursive one (0, twice), one held by another thread for a while (0, after the wait),
// a robust one whose owner died holding it (EOWNERDEAD), a write lock asked for while
// holding it (EDEADLK), a read lock twice (0), a read lock while another thread holds the
// write lock (0, after the wait), a spinlock, a semaphore with a count and one waiting for
// a post (and errno after each), the timed forms free and held. Prints one line per
// case; the test compares the lines with and without causal-run.
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

void print(const char* what, int rc) {
  std::printf("%s %s\n", what, rc == 0 ? "0" : strerrorname_np(rc));
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_t check;
  pthread_mutex_init(&check, &attr);
  print("errorcheck first", pthread_mutex_lock(&check));
  print("errorcheck again", pthread_mutex_lock(&check));
  pthread_mutex_unlock(&check);

  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_t recursive;
  pthread_mutex_init(&recursive, &attr);
  print("recursive first", pthread_mutex_lock(&recursive));
  print("recursive again", pthread_mutex_lock(&recursive));
  pthread_mutex_unlock(&recursive);
  pthread_mutex_unlock(&recursive);

  pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<bool> taken{false};
  std::thread holder([&] {
    pthread_mutex_lock(&held);
    taken = true;
    usleep(50000);
    pthread_mutex_unlock(&held);
  });
  while (!taken) usleep(1000);
  print("held by another", pthread_mutex_lock(&held));
  pthread_mutex_unlock(&held);
  holder.join();

  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_t robust;
  pthread_mutex_init(&robust, &attr);
  std::thread([&] { pthread_mutex_lock(&robust); }).join();  // dies holding it
  const int owner_dead = pthread_mutex_lock(&robust);
  print("robust, owner dead", owner_dead);
  if (owner_dead == EOWNERDEAD) pthread_mutex_consistent(&robust);
  pthread_mutex_unlock(&robust);

  pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
  print("wrlock", pthread_rwlock_wrlock(&rw));
  print("wrlock while writing", pthread_rwlock_wrlock(&rw));
  pthread_rwlock_unlock(&rw);
  print("rdlock", pthread_rwlock_rdlock(&rw));
  print("rdlock again", pthread_rwlock_rdlock(&rw));
  pthread_rwlock_unlock(&rw);
  pthread_rwlock_unlock(&rw);
  taken = false;
  std::thread writer([&] {
    pthread_rwlock_wrlock(&rw);
    taken = true;
    usleep(50000);
    pthread_rwlock_unlock(&rw);
  });
  while (!taken) usleep(1000);
  print("rdlock while another writes", pthread_rwlock_rdlock(&rw));
  pthread_rwlock_unlock(&rw);
  writer.join();

  pthread_spinlock_t spin;
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  print("spin", pthread_spin_lock(&spin));
  pthread_spin_unlock(&spin);

  // A semaphore: taken at once while its count is above zero, then after a post by another
  // thread; errno stays what it was when the call succeeds (the try's EAGAIN is not seen).
  sem_t sem;
  sem_init(&sem, 0, 1);
  errno = 0;
  print("sem_wait with a count", sem_wait(&sem) == 0 ? 0 : errno);
  print("errno after it", errno);
  std::thread poster([&] {
    usleep(50000);
    sem_post(&sem);
  });
  print("sem_wait for a post", sem_wait(&sem) == 0 ? 0 : errno);
  print("errno after it", errno);
  poster.join();

  // The timed forms: at once when free (a deadline in the past does not matter then),
  // ETIMEDOUT when not.
  const timespec past{0, 0};
  sem_post(&sem);
  print("sem_timedwait with a count", sem_timedwait(&sem, &past) == 0 ? 0 : errno);
  print("sem_timedwait without", sem_timedwait(&sem, &past) == 0 ? 0 : errno);
  sem_destroy(&sem);
  pthread_mutex_t timed = PTHREAD_MUTEX_INITIALIZER;
  print("timedlock free", pthread_mutex_timedlock(&timed, &past));
  std::thread([&] { print("timedlock held", pthread_mutex_timedlock(&timed, &past)); }).join();
  pthread_mutex_unlock(&timed);
  pthread_rwlock_t timed_rw = PTHREAD_RWLOCK_INITIALIZER;
  print("timedwrlock free", pthread_rwlock_timedwrlock(&timed_rw, &past));
  std::thread([&] {
    print("timedrdlock held", pthread_rwlock_timedrdlock(&timed_rw, &past));
  }).join();
  pthread_rwlock_unlock(&timed_rw);
  return 0;
}
