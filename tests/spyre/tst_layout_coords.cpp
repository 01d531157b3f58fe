// The inverse of deviceLayout(): every host element appears exactly once among the device elements, and
// everything else is padding. Checked on the torch-spyre doc's example and on awkward shapes.
#include "core/spyre/layout_coords.h"

#include <QtTest>

#include <set>

using namespace spyglass::spyre;

namespace {
void checkBijection(const Shape& shape, int stickDim, DeviceOrder order)
{
    const Shape strides = contiguousStrides(shape);
    const SpyreTensorLayout l = deviceLayout(shape, strides, stickDim, order, 64, "DL16");
    std::set<std::vector<int64_t>> seen;
    int64_t padding = 0;
    std::vector<int64_t> idx(l.deviceSize.size(), 0);
    const int64_t total = l.deviceElements();
    for (int64_t linear = 0; linear < total; ++linear) {
        int64_t rest = linear;
        for (int i = static_cast<int>(idx.size()) - 1; i >= 0; --i) {
            idx[static_cast<size_t>(i)] = rest % l.deviceSize[static_cast<size_t>(i)];
            rest /= l.deviceSize[static_cast<size_t>(i)];
        }
        const HostCoordinate h = hostCoordinateOf(l, shape, strides, idx);
        if (h.padding) {
            ++padding;
            continue;
        }
        QVERIFY2(seen.insert(h.coord).second, "a host element appears twice on the device");
        QCOMPARE(deviceIndexOf(l, strides, h.coord), idx);
    }
    QCOMPARE(static_cast<int64_t>(seen.size()), shapeProduct(shape));
    QCOMPARE(padding, total - shapeProduct(shape));
}
}  // namespace

class TestLayoutCoords : public QObject {
    Q_OBJECT
private slots:
    void torchSpyreDocExample()
    {
        // Host (1024, 256) fp16 with stick dim 1 -> device (4, 1024, 64).
        const Shape shape{1024, 256};
        const SpyreTensorLayout l = deviceLayout(shape, contiguousStrides(shape), 1, DeviceOrder::Default, 64, "DL16");
        QCOMPARE(l.deviceSize, (Shape{4, 1024, 64}));
        const HostCoordinate h = hostCoordinateOf(l, shape, contiguousStrides(shape), {2, 5, 7});
        QCOMPARE(h.coord, (std::vector<int64_t>{5, 2 * 64 + 7}));
        QVERIFY(!h.padding);
    }
    void paddingOfAShortStick()
    {
        const Shape shape{3, 100};   // 100 = 64 + 36: the second stick of each row has 28 padding elements
        const Shape strides = contiguousStrides(shape);
        const SpyreTensorLayout l = deviceLayout(shape, strides, 1, DeviceOrder::Default, 64, "DL16");
        QCOMPARE(paddingInStick(l, shape, strides, {0, 0}), int64_t(0));
        QCOMPARE(paddingInStick(l, shape, strides, {1, 2}), int64_t(28));
    }
    void everyHostElementOnceAndOnlyOnce_data()
    {
        QTest::addColumn<Shape>("shape");
        QTest::addColumn<int>("stickDim");
        QTest::addColumn<bool>("batchOuter");
        QTest::newRow("2d stick d1") << Shape{7, 130} << 1 << false;
        QTest::newRow("2d stick d0") << Shape{70, 3} << 0 << false;
        QTest::newRow("3d default") << Shape{3, 5, 70} << 2 << false;
        QTest::newRow("3d batch outer") << Shape{3, 5, 70} << 2 << true;
        QTest::newRow("4d middle stick") << Shape{2, 65, 3, 4} << 1 << false;
        QTest::newRow("1d") << Shape{200} << 0 << false;
    }
    void everyHostElementOnceAndOnlyOnce()
    {
        QFETCH(Shape, shape);
        QFETCH(int, stickDim);
        QFETCH(bool, batchOuter);
        checkBijection(shape, stickDim, batchOuter ? DeviceOrder::BatchOutermost : DeviceOrder::Default);
    }
};

QTEST_GUILESS_MAIN(TestLayoutCoords)
#include "tst_layout_coords.moc"
