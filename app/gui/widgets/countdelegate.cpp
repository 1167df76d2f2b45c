// SPDX-License-Identifier: GPL-2.0-or-later
#include "widgets/countdelegate.h"

namespace ringside {

QString CountDelegate::displayText(const QVariant& value, const QLocale& given) const
{
    // Item views hand their delegates a locale told to omit group separators.
    QLocale locale = given;
    locale.setNumberOptions(given.numberOptions() & ~QLocale::OmitGroupSeparator);
    switch (value.typeId()) {
    case QMetaType::ULongLong:
    case QMetaType::UInt: return locale.toString(value.toULongLong());
    case QMetaType::LongLong:
    case QMetaType::Int: return locale.toString(value.toLongLong());
    default: return QStyledItemDelegate::displayText(value, given);
    }
}

void CountDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    option->displayAlignment = Qt::AlignRight | Qt::AlignVCenter;
}

} // namespace ringside
