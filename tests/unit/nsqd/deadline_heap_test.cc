#include "core/deadline_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace nsq::nsqd {
namespace {

struct Item {
  int deadline = 0;
  int id = 0;
  std::size_t heap_index = 0;
};

// Pops everything, returning the deadlines in pop order.
std::vector<int> drain(DeadlineHeap<Item>& h) {
  std::vector<int> out;
  while (!h.empty()) {
    Item* top = h.top();
    out.push_back(top->deadline);
    h.remove(top);
  }
  return out;
}

TEST(DeadlineHeap, StartsEmpty) {
  DeadlineHeap<Item> h;
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.size(), 0u);
}

TEST(DeadlineHeap, TopIsTheEarliestDeadline) {
  std::vector<Item> items{{5, 0}, {3, 1}, {9, 2}, {1, 3}, {7, 4}, {3, 5}};
  DeadlineHeap<Item> h;
  for (auto& i : items) h.push(&i);
  EXPECT_EQ(h.size(), items.size());
  EXPECT_EQ(h.top()->deadline, 1);
  EXPECT_EQ(drain(h), (std::vector<int>{1, 3, 3, 5, 7, 9}));
}

TEST(DeadlineHeap, HeapIndexTracksThePosition) {
  std::vector<Item> items(20);
  DeadlineHeap<Item> h;
  for (int i = 0; i < 20; ++i) {
    items[static_cast<std::size_t>(i)].deadline = (i * 7) % 20;
    h.push(&items[static_cast<std::size_t>(i)]);
  }
  // Removing by pointer must remove exactly that element wherever it sits.
  std::size_t expected = 20;
  for (int target : {13, 0, 19, 7}) {
    h.remove(&items[static_cast<std::size_t>(target)]);
    EXPECT_EQ(h.size(), --expected);
  }
  auto order = drain(h);
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  std::multiset<int> want;
  for (int i = 0; i < 20; ++i) {
    if (i == 13 || i == 0 || i == 19 || i == 7) continue;
    want.insert((i * 7) % 20);
  }
  EXPECT_EQ(std::multiset<int>(order.begin(), order.end()), want);
}

TEST(DeadlineHeap, RemoveTheLastAndTheOnlyElement) {
  Item a{1, 0}, b{2, 1};
  DeadlineHeap<Item> h;
  h.push(&a);
  h.remove(&a);
  EXPECT_TRUE(h.empty());
  h.push(&a);
  h.push(&b);
  h.remove(&b);  // the last slot
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(h.top(), &a);
}

TEST(DeadlineHeap, UpdateMovesAnElementEitherWay) {
  std::vector<Item> items{{10, 0}, {20, 1}, {30, 2}, {40, 3}};
  DeadlineHeap<Item> h;
  for (auto& i : items) h.push(&i);
  items[3].deadline = 5;  // later -> earliest
  h.update(&items[3]);
  EXPECT_EQ(h.top(), &items[3]);
  items[3].deadline = 35;  // earliest -> late (TOUCH)
  h.update(&items[3]);
  EXPECT_EQ(h.top(), &items[0]);
  items[0].deadline = 50;
  h.update(&items[0]);
  EXPECT_EQ(drain(h), (std::vector<int>{20, 30, 35, 50}));
}

TEST(DeadlineHeap, ClearEmpties) {
  Item a{1, 0}, b{2, 1};
  DeadlineHeap<Item> h;
  h.push(&a);
  h.push(&b);
  h.clear();
  EXPECT_TRUE(h.empty());
  h.push(&b);
  EXPECT_EQ(h.top(), &b);
}

// Random push / remove / update / pop against a std::multiset oracle.
TEST(DeadlineHeap, RandomOperationsMatchAMultisetOracle) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::deque<Item> storage;                   // stable addresses
    std::vector<Item*> live;                    // in the heap
    std::multiset<std::pair<int, int>> oracle;  // (deadline, id)
    DeadlineHeap<Item> h;
    int next_id = 0;
    for (int step = 0; step < 3000; ++step) {
      int op = static_cast<int>(rng() % 10);
      if (op < 4 || live.empty()) {  // push
        storage.push_back(Item{static_cast<int>(rng() % 100), next_id++, 0});
        Item* it = &storage.back();
        h.push(it);
        live.push_back(it);
        oracle.emplace(it->deadline, it->id);
      } else if (op < 6) {  // remove an arbitrary one (FIN)
        std::size_t k = rng() % live.size();
        Item* it = live[k];
        h.remove(it);
        oracle.erase(oracle.find({it->deadline, it->id}));
        live[k] = live.back();
        live.pop_back();
      } else if (op < 8) {  // change a deadline (TOUCH)
        Item* it = live[rng() % live.size()];
        oracle.erase(oracle.find({it->deadline, it->id}));
        it->deadline = static_cast<int>(rng() % 100);
        h.update(it);
        oracle.emplace(it->deadline, it->id);
      } else {  // pop the earliest (timeout)
        Item* it = h.top();
        ASSERT_EQ(it->deadline, oracle.begin()->first) << "seed " << seed << " step " << step;
        oracle.erase(oracle.find({it->deadline, it->id}));
        h.remove(it);
        live.erase(std::find(live.begin(), live.end(), it));
      }
      ASSERT_EQ(h.size(), oracle.size()) << "seed " << seed << " step " << step;
      if (!h.empty()) {
        ASSERT_EQ(h.top()->deadline, oracle.begin()->first) << "seed " << seed << " step " << step;
      }
    }
    std::vector<int> order = drain(h);
    std::vector<int> want;
    for (auto& [d, id] : oracle) want.push_back(d);
    EXPECT_EQ(order, want) << "seed " << seed;
  }
}

}  // namespace
}  // namespace nsq::nsqd
